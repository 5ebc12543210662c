/**
 * Forms that post to us: each carries the CSRF token in {@link CSRF_FIELD},
 * so no page passes the field by hand.
 * @module
 */
import { CSRF_FIELD } from '../csrf-token.js';
import { html, type SafeHtml } from '../html.js';

/** The hidden CSRF field, for forms laid out by hand (consent, sign-in). */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

export interface PostFormOptions {
  readonly action: string;
  /** The token from `csrf.tokenFor(…)`. */
  readonly csrf: string;
  /** Hidden fields sent along, in order. */
  readonly hidden?: Readonly<Record<string, string>>;
  /** The visible fields and buttons. */
  readonly content: SafeHtml;
}

/** `<form method="post">` with the CSRF token, then the hidden fields, then the content. */
export function postForm(options: PostFormOptions): SafeHtml {
  const hidden = Object.entries(options.hidden ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${options.action}">${csrfField(options.csrf)}${hidden}${options.content}</form>`;
}

/** A form that is only a button. */
export function buttonForm(options: Omit<PostFormOptions, 'content'> & { readonly label: string }): SafeHtml {
  return postForm({ ...options, content: html`<button type="submit">${options.label}</button>` });
}
