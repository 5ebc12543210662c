/**
 * Page components: typed functions over the escaping `html` tag, shared by
 * every page of ours (why not JSX: docs/development.md "Pages").
 * @module
 */
export { buttonForm, csrfField, postForm, type PostFormOptions } from './csrf-form.js';
export { field, fieldError, type FieldOptions } from './field.js';
export { layout, navigation, type LayoutOptions, type NavLink } from './layout.js';
export { errorAlert, errorSummary, notice, type FormProblem } from './messages.js';
