/**
 * The four static-asset routes share one cache policy (issue 29 item 3): an
 * ETag on every answer and 304 for a matching If-None-Match; a year and
 * `immutable` only for a hashed name; `no-cache` (revalidate) for the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSKEY_LIBRARY_PATH, PASSKEY_SCRIPT_PATH } from '../../src/accounts/passkeys/paths.js';
import { WRITE_SCRIPT_PATH } from '../../src/admin/write/script.js';
import { STYLESHEET_PATH, stylesheetHash } from '../../src/entries/document.js';
import { BUILT_IN_TEMPLATES } from '../../src/entries/templates.js';
import { UI_STYLESHEET_PATH } from '../../src/web/ui/stylesheet.js';
import { entriesApp, type EntriesTestApp } from '../helpers/entries.js';

let t: EntriesTestApp;
beforeAll(async () => {
  t = await entriesApp();
});
afterAll(async () => {
  await t.close();
});

// [what, path, content type, hashed name]
const assets: [string, string, string, boolean][] = [
  ['the UI stylesheet', UI_STYLESHEET_PATH, 'text/css', true],
  ['the UI stylesheet of another release', '/indieweb/assets/ui-0000000000000000.css', 'text/css', false],
  ['the entry stylesheet as pages link it', `${STYLESHEET_PATH}?v=${stylesheetHash(BUILT_IN_TEMPLATES.stylesheet)}`, 'text/css', true],
  ['the entry stylesheet of another version', `${STYLESHEET_PATH}?v=0000`, 'text/css', false],
  ['the entry stylesheet without a version', STYLESHEET_PATH, 'text/css', false],
  ['the Write script', WRITE_SCRIPT_PATH, 'text/javascript', false],
  ['the passkey library', PASSKEY_LIBRARY_PATH, 'text/javascript', false],
  ['the passkey script', PASSKEY_SCRIPT_PATH, 'text/javascript', false],
];

describe('static assets', () => {
  it.each(assets)('%s has an ETag, nosniff and the one cache policy, and revalidates to a 304', async (_what, path, type, hashed) => {
    const first = await t.get(path);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toContain(type);
    expect(first.headers['x-content-type-options']).toBe('nosniff');
    expect(first.headers['cache-control']).toBe(hashed ? 'public, max-age=31536000, immutable' : 'public, no-cache');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await t.get(path, { 'if-none-match': `W/"other", ${etag}` });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    const changed = await t.get(path, { 'if-none-match': '"something-else"' });
    expect(changed.statusCode).toBe(200);
    expect(changed.body).toBe(first.body);
  });
});
