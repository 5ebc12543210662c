/**
 * SPEC.md: `INDIEWEB_MICROPUB_HANDLER` names the content handler by module
 * path (`./module.js#export`; the default export without `#`), as a handler
 * object or a factory; the server uses it for every Micropub operation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { micropubGet, postForm, standaloneApp } from '../helpers/micropub.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-handler-setting-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// a handler that keeps what it was given, and says where it was made
const handlerSource = (label: string) => `{
  created: [],
  async createEntry(entry, user) { this.created.push({ entry, user: user.name }); return { url: base + '/${label}/' + this.created.length, type: entry.type, properties: entry.properties }; },
  async getEntry() { return null; },
  async updateEntry() { throw new Error('unused'); },
  async deleteEntry() {},
  async undeleteEntry() { throw new Error('unused'); },
  async getConfig() { return { 'syndicate-to': [{ uid: '${label}', name: '${label}' }] }; },
}`;
writeFileSync(
  path.join(dir, 'handlers.mjs'),
  [
    `export default function factory({ baseUrl }) { const base = baseUrl; return ${handlerSource('factory')}; }`,
    `const base = 'https://object.example'; export const objectHandler = ${handlerSource('object')};`,
  ].join('\n'),
);

describe('INDIEWEB_MICROPUB_HANDLER with a module of the user', () => {
  it.each([
    ['a factory as the default export', path.join(dir, 'handlers.mjs'), 'http://indiestack.test/factory/1', 'factory'],
    ['a handler object as a named export', `${path.join(dir, 'handlers.mjs')}#objectHandler`, 'https://object.example/object/1', 'object'],
  ])('%s answers creates and queries', async (_label, specifier, location, uid) => {
    const t = await standaloneApp({ INDIEWEB_MICROPUB_HANDLER: specifier });
    try {
      const token = await t.token('create');
      const created = await postForm(t.app, token, { h: 'entry', content: 'through the setting' });
      expect(created.statusCode).toBe(201);
      expect(created.headers.location).toBe(location);
      const config = await micropubGet(t.app, token, { q: 'syndicate-to' });
      expect(config.json()).toEqual({ 'syndicate-to': [{ uid, name: uid }] });
    } finally {
      await t.close();
    }
  });
});
