/**
 * The shape bounds every page from another site is held to before its
 * microformats are read (webmention sources, client pages, cited pages,
 * discovery, the doctor's homepage): a page whose nesting or number of
 * items would make reading it cost far more than its size is refused.
 * @module
 */
import { classList, type HtmlNode } from './tree.js';

/** A source page whose shape would make reading it cost far more than its size (issue 23 #3). */
export class SourceTooComplexError extends Error {
  override readonly name = 'SourceTooComplexError';
}

/** Bounds on a source page, checked on the parse tree before microformats are read. */
export const SOURCE_LIMITS = Object.freeze({
  /** Deepest element nesting. */
  elementDepth: 512,
  /** Microformats items (`h-*` elements) in the page. */
  items: 2_000,
  /** `e-*` properties nested inside each other: each level is serialised again by the parser. */
  embeddedHtmlDepth: 8,
});

/** Throws {@link SourceTooComplexError} when the page breaks one of {@link SOURCE_LIMITS}; one iterative pass. */
export function assertReadableShape(tree: HtmlNode): void {
  let items = 0;
  const stack: { node: HtmlNode; depth: number; embedded: number }[] = [{ node: tree, depth: 0, embedded: 0 }];
  while (stack.length > 0) {
    const { node, depth, embedded } = stack.pop()!;
    let nested = embedded;
    if ('tagName' in node) {
      if (depth > SOURCE_LIMITS.elementDepth)
        throw new SourceTooComplexError(`source page nests elements deeper than ${SOURCE_LIMITS.elementDepth} levels`);
      const tokens = classList(node);
      if (tokens.some((token) => token.startsWith('h-')) && ++items > SOURCE_LIMITS.items)
        throw new SourceTooComplexError(`source page has more than ${SOURCE_LIMITS.items} microformats items`);
      if (tokens.some((token) => token.startsWith('e-'))) nested += 1;
      if (nested > SOURCE_LIMITS.embeddedHtmlDepth)
        throw new SourceTooComplexError(`source page nests e-* properties deeper than ${SOURCE_LIMITS.embeddedHtmlDepth} levels`);
    }
    const content = 'tagName' in node && node.tagName === 'template' ? (node as unknown as { content: HtmlNode }).content : null;
    if (content !== null) stack.push({ node: content, depth: depth + 1, embedded: nested });
    if ('childNodes' in node) for (const child of node.childNodes) stack.push({ node: child, depth: depth + 1, embedded: nested });
  }
}
