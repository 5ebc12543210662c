/**
 * The text of a post as typed (plain text, Markdown or HTML) ↔ its Micropub
 * `content` value. Markdown goes through `marked`; HTML from either is
 * sanitized with the policy entry pages show content with
 * (entries/content-html.ts), so what is stored is what will be shown.
 * Markdown keeps its source as the value's `value`, so an edit shows the
 * Markdown again, not the HTML made from it.
 * @module
 */
import { Marked } from 'marked';
import { sanitizeEntryHtml } from '../../entries/content-html.js';

export const CONTENT_FORMATS = ['text', 'markdown', 'html'] as const;
export type ContentFormat = (typeof CONTENT_FORMATS)[number];

export function isContentFormat(value: unknown): value is ContentFormat {
  return typeof value === 'string' && (CONTENT_FORMATS as readonly string[]).includes(value);
}

// an instance of our own: options set elsewhere in the process never change what Markdown becomes here
const markdown = new Marked({ gfm: true, breaks: false, async: false });

/** Markdown → sanitized HTML. */
export function markdownToHtml(source: string): string {
  return sanitizeEntryHtml(markdown.parse(source, { async: false }));
}

/** The `content` value for text in a format: a string for plain text, `{ html, value }` for Markdown, `{ html }` for HTML. */
export function contentValue(text: string, format: ContentFormat): unknown {
  if (format === 'text') return text;
  if (format === 'markdown') return { html: markdownToHtml(text), value: text };
  return { html: sanitizeEntryHtml(text) };
}

/** The text and format an existing `content` value is edited as. */
export function contentText(value: unknown): { text: string; format: ContentFormat } {
  if (typeof value === 'string') return { text: value, format: 'text' };
  if (typeof value !== 'object' || value === null) return { text: '', format: 'text' };
  const { html, value: source } = value as { html?: unknown; value?: unknown };
  if (typeof html === 'string') {
    if (typeof source === 'string' && markdownToHtml(source) === html) return { text: source, format: 'markdown' };
    return { text: html, format: 'html' };
  }
  return { text: typeof source === 'string' ? source : '', format: 'text' };
}
