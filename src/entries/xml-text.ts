/**
 * Text in XML 1.0, for the Atom feed: every value escaped for where it goes
 * (element text, a CDATA section or a double-quoted attribute), and the characters XML cannot
 * hold at all (C0 controls but tab, newline and carriage return; lone
 * surrogates; U+FFFE and U+FFFF) dropped, since no escape makes them legal.
 * Carriage returns, and tabs and newlines in attributes, are written as
 * character references so a parser reads back exactly what was written
 * (it would normalise them otherwise).
 * @see https://www.w3.org/TR/xml/#charsets
 * @module
 */

/** One character outside XML 1.0's `Char` production (one code point at a time: linear). */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const TEXT_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };
const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = { ...TEXT_ESCAPES, '"': '&quot;', '\t': '&#9;', '\n': '&#10;' };

/** The value without the characters XML cannot hold. */
export function xmlChars(value: string): string {
  return value.replace(NOT_XML_CHAR, '');
}

/** Element text. */
export function xmlText(value: string): string {
  return xmlChars(value).replace(/[&<>\r]/g, (char) => TEXT_ESCAPES[char]!);
}

/**
 * A CDATA section: the text as it is, every `]]>` split across two sections
 * (a parser joins them back). For HTML content, where a carriage return read
 * back as a newline changes nothing.
 */
export function xmlCdata(value: string): string {
  return `<![CDATA[${xmlChars(value).replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

/** A double-quoted attribute's value. */
export function xmlAttribute(value: string): string {
  return xmlChars(value).replace(/[&<>"\r\t\n]/g, (char) => ATTRIBUTE_ESCAPES[char]!);
}
