/**
 * HTML reading for Webmention: attribute scanning and element lookup on a
 * real parse tree (parse5), never on the text.
 * @module
 */
import { parse, serialize, type DefaultTreeAdapterMap } from 'parse5';

export type HtmlNode = DefaultTreeAdapterMap['node'];
type Node = HtmlNode;
type Element = DefaultTreeAdapterMap['element'];

export function parseHtml(html: string): HtmlNode {
  return parse(html);
}

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

/** Every element in document order (template contents included). */
export function* elements(root: Node): Generator<Element> {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isElement(node)) yield node;
    const children = 'childNodes' in node ? node.childNodes : [];
    const content = isElement(node) && node.tagName === 'template' ? [(node as unknown as { content: Node }).content] : [];
    stack.push(...[...children, ...content].reverse());
  }
}

export function attribute(element: Element, name: string): string | undefined {
  return element.attrs.find((attr) => attr.name === name)?.value;
}

/** Every `href` attribute value, in document order. */
export function hrefs(root: Node): string[] {
  const found: string[] = [];
  for (const element of elements(root)) {
    const href = attribute(element, 'href');
    if (href !== undefined) found.push(href);
  }
  return found;
}

/** The outer HTML of the element with this id, or null. */
export function elementHtmlById(root: Node, id: string): string | null {
  for (const element of elements(root)) {
    if (attribute(element, 'id') === id) {
      const wrapper = { nodeName: '#document-fragment', childNodes: [element] } as unknown as DefaultTreeAdapterMap['documentFragment'];
      return serialize(wrapper);
    }
  }
  return null;
}
