/**
 * The body of a page: navigation (when there is any), then the main content
 * under its heading. `sendPage` (../html.ts) wraps it in the document.
 * @module
 */
import { html, type SafeHtml } from '../html.js';

export interface NavLink {
  readonly href: string;
  readonly label: string;
}

/** The site bar: the name, the links, and what ends it (the sign-out form). */
export function navigation(options: { readonly links?: readonly NavLink[]; readonly end?: SafeHtml }): SafeHtml {
  const links = (options.links ?? []).map((link) => html`<a href="${link.href}">${link.label}</a>`);
  return html`<nav><strong>indiestack</strong>${links}${options.end ?? ''}</nav>`;
}

export interface LayoutOptions {
  readonly nav?: SafeHtml;
  /** The `<h1>`; none when the content brings its own heading. */
  readonly heading?: string;
  /** Shown under the heading (a notice or an alert). */
  readonly message?: SafeHtml | '';
  readonly content: SafeHtml;
}

export function layout(options: LayoutOptions): SafeHtml {
  const main = html`<main>${options.heading === undefined ? '' : html`<h1>${options.heading}</h1>`}${options.message ?? ''}${options.content}</main>`;
  return options.nav === undefined ? main : html`${options.nav}\n${main}`;
}
