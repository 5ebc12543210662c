/**
 * Values as people read them on our pages: times to the minute in UTC (the
 * exact instant stays in the `datetime` attribute) and byte counts in the
 * unit that fits.
 * @module
 */
import { html, type SafeHtml } from '../html.js';

/** `2026-11-25 18:41 UTC`, inside a `<time>` carrying the exact ISO instant; anything unparseable is shown as given. */
export function timestamp(iso: string): SafeHtml {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return html`${iso}`;
  const shown = `${when.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${when.toISOString()}">${shown}</time>`;
}

/** `149 bytes`, `1.5 KiB`, `12 MiB`: one decimal below 10 in a unit, none above. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1).replace(/\.0$/, '') : Math.round(value)} ${units[unit]}`;
}
