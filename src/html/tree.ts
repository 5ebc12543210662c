/**
 * HTML reading for Webmention: attribute scanning and element lookup on a
 * real parse tree (parse5), never on the text.
 * @module
 */
import { parse, serialize, type DefaultTreeAdapterMap } from 'parse5';

export type HtmlNode = DefaultTreeAdapterMap['node'];
export type HtmlElement = DefaultTreeAdapterMap['element'];

export function parseHtml(html: string): HtmlNode {
  return parse(html);
}

/** Parses a whole document as a crawler sees it: scripting off, so `<noscript>` content is markup. */
export function parseHtmlDocument(html: string): DefaultTreeAdapterMap['document'] {
  return parse(html, { scriptingEnabled: false });
}

function isElement(node: HtmlNode): node is HtmlElement {
  return 'tagName' in node;
}

/**
 * Every element in document order. parse5 keeps `<template>` contents out of
 * `childNodes`: they are walked only with `templates: true` (receiving reads
 * every link; discovery, like a browser, treats them as inert).
 */
export function* elements(root: HtmlNode, options: { templates: boolean } = { templates: true }): Generator<HtmlElement> {
  const stack: HtmlNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isElement(node)) yield node;
    if (options.templates && isElement(node) && node.tagName === 'template') stack.push((node as unknown as { content: HtmlNode }).content);
    if ('childNodes' in node) for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i]!);
  }
}

export function attribute(element: HtmlElement, name: string): string | undefined {
  return element.attrs.find((attr) => attr.name === name)?.value;
}

/** An HTML space-separated token list (`class`, `rel`) as its tokens. */
export function tokenList(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(/[\t\n\f\r ]+/).filter((token) => token !== '');
}

/** The element's class names. */
export function classList(element: HtmlElement): string[] {
  return tokenList(attribute(element, 'class'));
}

/** Every `href` attribute value, in document order. */
export function hrefs(root: HtmlNode): string[] {
  const found: string[] = [];
  for (const element of elements(root)) {
    const href = attribute(element, 'href');
    if (href !== undefined) found.push(href);
  }
  return found;
}

/** The outer HTML of the element with this id, or null. */
export function elementHtmlById(root: HtmlNode, id: string): string | null {
  for (const element of elements(root)) {
    if (attribute(element, 'id') === id) {
      const wrapper = { nodeName: '#document-fragment', childNodes: [element] } as unknown as DefaultTreeAdapterMap['documentFragment'];
      return serialize(wrapper);
    }
  }
  return null;
}
