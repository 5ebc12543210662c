/**
 * A labelled form field with its errors right after it, tied to the control
 * (`aria-describedby`, `aria-invalid`) so a screen reader reads them with it.
 * @module
 */
import { html, type SafeHtml } from '../html.js';

export interface FieldOptions {
  readonly name: string;
  readonly label: string;
  readonly value: string;
  /** A three-line textarea instead of a text input. */
  readonly multiline?: boolean;
  /** @defaultValue `field-NAME` */
  readonly id?: string;
  /** Shown after the control, each read out at once. */
  readonly errors?: readonly string[];
  /** A line of help under the label, tied to the control too. */
  readonly hint?: string;
}

/** The id of the n-th error of the control `id` (see {@link describedBy}). */
export function errorId(id: string, index = 0): string {
  return index === 0 ? `${id}-error` : `${id}-error-${index + 1}`;
}

/** One error message of the control `id`; give the control {@link invalidAttributes}. */
export function fieldError(message: string, id?: string, index = 0): SafeHtml {
  return id === undefined
    ? html`<span class="error" role="alert">${message}</span>`
    : html`<span class="error" id="${errorId(id, index)}" role="alert">${message}</span>`;
}

/** ` aria-invalid="true" aria-describedby="…"` for a control with `errors` errors (and a hint), or nothing. */
export function invalidAttributes(id: string, errors: number, hintId?: string): SafeHtml | '' {
  const ids = [...(hintId === undefined ? [] : [hintId]), ...Array.from({ length: errors }, (_, index) => errorId(id, index))];
  if (ids.length === 0) return '';
  return html`${errors > 0 ? html` aria-invalid="true"` : ''} aria-describedby="${ids.join(' ')}"`;
}

export function field(options: FieldOptions): SafeHtml {
  const { name, label, value } = options;
  const id = options.id ?? `field-${name}`;
  const errors = options.errors ?? [];
  const hintId = options.hint === undefined ? undefined : `${id}-hint`;
  const attributes = invalidAttributes(id, errors.length, hintId);
  const control =
    options.multiline === true
      ? html`<textarea id="${id}" name="${name}" rows="3"${attributes}>${value}</textarea>`
      : html`<input type="text" id="${id}" name="${name}" value="${value}"${attributes}>`;
  const hint = options.hint === undefined ? '' : html`<span class="hint" id="${hintId}">${options.hint}</span>`;
  return html`<label for="${id}">${label}</label>${hint}${control}${errors.map((message, index) => fieldError(message, id, index))}`;
}
