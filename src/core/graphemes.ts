/**
 * Text by graphemes (what a reader counts as one character) and by words,
 * through `Intl.Segmenter`, made on first use: the first Intl object a process
 * makes reads ~9 MiB of ICU's data (the node binary's pages) into memory, so
 * a segmenter made when a module loads cost that to every process, though only
 * syndication and long mentions ever segment text (issue 31).
 * @module
 */

let graphemeSegmenter: Intl.Segmenter | undefined;
let wordSegmenter: Intl.Segmenter | undefined;

/** The graphemes of `text`, lazily: only those iterated are looked at. */
export function graphemesOf(text: string): Intl.Segments {
  graphemeSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return graphemeSegmenter.segment(text);
}

/** The words of `text` and what lies between them (spaces, punctuation), lazily. */
export function wordsOf(text: string): Intl.Segments {
  wordSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  return wordSegmenter.segment(text);
}

/** How many graphemes `text` has. */
export function graphemeCount(text: string): number {
  let count = 0;
  for (const _ of graphemesOf(text)) count += 1;
  return count;
}
