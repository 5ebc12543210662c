/**
 * A strict XML reader for tests: saxes checks well-formedness (characters,
 * escapes, attributes, namespaces) and throws on the first fault, where
 * fast-xml-parser's validator lets a `<` in an attribute or a control
 * character through. The document comes back as a small element tree with
 * attribute values and text decoded.
 * @module
 */
import { SaxesParser } from 'saxes';

export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** The element's own text and CDATA, joined. */
  text: string;
}

/** The root element; throws when the document is not well-formed XML 1.0. */
export function parseXmlStrict(document: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  parser.on('opentag', (tag) => {
    const attributes: Record<string, string> = {};
    for (const [name, attribute] of Object.entries(tag.attributes)) attributes[name] = attribute.value;
    const element: XmlElement = { name: tag.local, attributes, children: [], text: '' };
    stack.at(-1)?.children.push(element);
    stack.push(element);
    root ??= element;
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('text', (text) => {
    const current = stack.at(-1);
    if (current !== undefined) current.text += text;
  });
  parser.on('cdata', (cdata) => {
    const current = stack.at(-1);
    if (current !== undefined) current.text += cdata;
  });
  parser.write(document).close();
  if (root === null) throw new Error('no root element');
  return root;
}

/** The children of an element with this local name. */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((child) => child.name === name);
}

/** The only child of this name; throws when there is none or several. */
export function childNamed(element: XmlElement, name: string): XmlElement {
  const found = childrenNamed(element, name);
  if (found.length !== 1) throw new Error(`${element.name} has ${found.length} <${name}>`);
  return found[0]!;
}
