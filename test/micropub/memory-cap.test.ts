/**
 * Issue 31: `INDIEWEB_MEMORY_HANDLER_MAX_ENTRIES` caps what the in-memory
 * handler keeps; past it the oldest entry is forgotten, so its memory stops
 * growing with every create.
 */
import { describe, expect, it } from 'vitest';
import { micropubGet, postForm, standaloneApp } from '../helpers/micropub.js';

describe('INDIEWEB_MEMORY_HANDLER_MAX_ENTRIES', () => {
  it('keeps the newest entries up to the cap and forgets the oldest', async () => {
    const t = await standaloneApp({ INDIEWEB_MICROPUB_HANDLER: 'memory', INDIEWEB_MEMORY_HANDLER_MAX_ENTRIES: '3' });
    try {
      const token = await t.token('create update');
      const urls: string[] = [];
      for (const n of [1, 2, 3, 4, 5]) {
        const created = await postForm(t.app, token, { h: 'entry', content: `entry ${n}` });
        expect(created.statusCode).toBe(201);
        urls.push(created.headers.location as string);
      }
      const listed = (await micropubGet(t.app, token, { q: 'source' })).json() as {
        items: { properties: { content: string[]; url: string[] } }[];
        paging?: { total: number };
      };
      expect(listed.items.map((item) => item.properties.content[0])).toEqual(['entry 5', 'entry 4', 'entry 3']);
      expect(listed.paging?.total ?? listed.items.length).toBe(3);
      const forgotten = await micropubGet(t.app, token, { q: 'source', url: urls[0]! });
      expect(forgotten.statusCode).toBe(400);
      expect((await micropubGet(t.app, token, { q: 'source', url: urls[4]! })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('refuses a value that is not a positive whole number, naming the setting', async () => {
    await expect(standaloneApp({ INDIEWEB_MICROPUB_HANDLER: 'memory', INDIEWEB_MEMORY_HANDLER_MAX_ENTRIES: 'lots' })).rejects.toThrow(
      /INDIEWEB_MEMORY_HANDLER_MAX_ENTRIES/,
    );
  });
});
