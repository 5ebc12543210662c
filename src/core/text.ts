/**
 * Small text operations that run over untrusted text in one pass, where the
 * obvious regular expression would backtrack: `/\/+$/` and `/[.,;]+$/`
 * retry at every start position of a long run (quadratic), `/<[^>]*>/g`
 * rescans to the end from every unclosed `<`. See docs/security.md,
 * "Untrusted text and regular expressions"; `test/security/regex-safety.test.ts`
 * checks every regular expression in `src/`.
 * @module
 */

/** `text` without the run of characters from `chars` at its end (`trimEndOf('a/b//', '/')` is `'a/b'`). */
export function trimEndOf(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the run of characters from `chars` at its start. */
export function trimStartOf(text: string, chars: string): string {
  let start = 0;
  while (start < text.length && chars.includes(text[start]!)) start++;
  return start === 0 ? text : text.slice(start);
}

/** `text` with every `<…>` (a `<`, then up to the next `>`) replaced by a space: what `text.replace(/<[^>]*>/g, ' ')` gives, in one pass. */
export function replaceTags(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<', from);
    if (open === -1) break;
    const close = text.indexOf('>', open + 1);
    // no `>` after this `<`: no later `<` closes either, so the rest is text
    if (close === -1) break;
    out += `${text.slice(from, open)} `;
    from = close + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** `text` with the characters that mean something in a pattern escaped, to build a `RegExp` that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
