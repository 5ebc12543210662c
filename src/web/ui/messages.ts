/**
 * What a page tells the user: an alert, a notice after a redirect, and the
 * summary of a form's problems.
 * @module
 */
import { html, type SafeHtml } from '../html.js';

/** An error read out at once (`role="alert"`); text is escaped, markup must be {@link SafeHtml}. */
export function errorAlert(message: string | SafeHtml): SafeHtml {
  return html`<p class="error" role="alert">${message}</p>`;
}

/** A confirmation of what was just done (`role="status"`). */
export function notice(message: string): SafeHtml {
  return html`<p class="notice" role="status">${message}</p>`;
}

/** One problem of a submitted form: the field (or property) and what is wrong with it. */
export interface FormProblem {
  readonly field: string;
  readonly message: string;
}

/** Every problem of a form that was not saved, by field; nothing when there is none. `id` lets a control name it in `aria-describedby`. */
export function errorSummary(problems: readonly FormProblem[], id?: string): SafeHtml | '' {
  if (problems.length === 0) return '';
  const idAttribute = id === undefined ? '' : html` id="${id}"`;
  const items = problems.map((problem) => html`<li><code>${problem.field}</code>: ${problem.message}</li>`);
  return html`<div class="error"${idAttribute} role="alert"><p>Nothing was saved:</p><ul>${items}</ul></div>`;
}
