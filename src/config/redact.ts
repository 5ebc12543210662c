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
    // unparseable: hide everything between the scheme and the last "@"
    return raw.replace(/\/\/.*@/, '//***@');
  }
}
