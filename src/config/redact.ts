/**
 * Hiding secrets in values before they are shown anywhere (problems, logs).
 * @module
 */

/** Hides a password in a database URL before it is shown anywhere. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== '') url.password = '***';
    return url.href;
  } catch {
    return hideUserInfo(raw);
  }
}

/** What `.` of a regular expression does not match. */
const LINE_ENDS = '\n\r\u2028\u2029';

/**
 * Unparseable: hide everything between the first "//" and the last "@" of the same line, as
 * `raw.replace(/\/\/.*@/, '//***@')` did, in one pass (that pattern retried at every "//").
 */
function hideUserInfo(raw: string): string {
  for (let from = 0; ;) {
    const slashes = raw.indexOf('//', from);
    if (slashes === -1) return raw;
    let lineEnd = slashes + 2;
    while (lineEnd < raw.length && !LINE_ENDS.includes(raw[lineEnd]!)) lineEnd++;
    let at = lineEnd - 1;
    while (at >= slashes + 2 && raw[at] !== '@') at--;
    if (at >= slashes + 2) return `${raw.slice(0, slashes)}//***@${raw.slice(at + 1)}`;
    // a later "//" on this line has no "@" after it either
    from = lineEnd + 1;
  }
}
