/**
 * The body of a page: the site bar (when there is one), then the main
 * content under its heading. `sendPage` (../html.ts) wraps it in the
 * document, whose skip link leads to `#main`.
 * @module
 */
import { html, type SafeHtml } from '../html.js';

export interface NavLink {
  readonly href: string;
  readonly label: string;
}

/**
 * The site bar: the name, the links (the one of the page shown marked with
 * `aria-current`), and what ends it (the sign-out form).
 */
export function navigation(options: {
  readonly links?: readonly NavLink[];
  readonly current?: string | undefined;
  readonly end?: SafeHtml;
}): SafeHtml {
  const links = (options.links ?? []).map((link) =>
    link.href === options.current
      ? html`<a href="${link.href}" aria-current="page">${link.label}</a>`
      : html`<a href="${link.href}">${link.label}</a>`,
  );
  return html`<header class="site-bar"><nav aria-label="indiestack"><strong>indiestack</strong>${links}${options.end ?? ''}</nav></header>`;
}

/** How wide the content may grow: the full desktop width (tables, lists, grids), a form's width, or a reading width. */
export type LayoutWidth = 'wide' | 'narrow' | 'medium';

export interface LayoutOptions {
  readonly nav?: SafeHtml;
  /** The `<h1>`; none when the content brings its own heading. */
  readonly heading?: string;
  /** Shown under the heading (a notice or an alert). */
  readonly message?: SafeHtml | '';
  readonly content: SafeHtml;
  /** @defaultValue 'wide' */
  readonly width?: LayoutWidth;
  /** Extra class names of `<main>` (plain names). */
  readonly className?: string;
}

export function layout(options: LayoutOptions): SafeHtml {
  const classes = [options.width === undefined || options.width === 'wide' ? '' : options.width, options.className ?? '']
    .filter((name) => name !== '')
    .join(' ');
  const classAttribute = classes === '' ? '' : html` class="${classes}"`;
  const heading = options.heading === undefined ? '' : html`<h1>${options.heading}</h1>`;
  const main = html`<main id="main"${classAttribute}>${heading}${options.message ?? ''}${options.content}</main>`;
  return options.nav === undefined ? main : html`${options.nav}\n${main}`;
}
