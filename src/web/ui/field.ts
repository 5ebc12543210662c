/**
 * A labelled form field with its errors right after it.
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
}

export function fieldError(message: string): SafeHtml {
  return html`<span class="error" role="alert">${message}</span>`;
}

export function field(options: FieldOptions): SafeHtml {
  const { name, label, value } = options;
  const id = options.id ?? `field-${name}`;
  const control =
    options.multiline === true ? html`<textarea id="${id}" name="${name}" rows="3">${value}</textarea>` : html`<input type="text" id="${id}" name="${name}" value="${value}">`;
  return html`<label for="${id}">${label}</label>${control}${(options.errors ?? []).map(fieldError)}`;
}
