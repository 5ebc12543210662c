import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addUser, buildAdminApp, getAdmin, issueToken } from '../helpers/admin.js';
import { micropubGet, postForm } from '../helpers/micropub.js';

const HANDLERS = ['memory', 'database', 'files'] as const;

function handlerEnv(handler: (typeof HANDLERS)[number], dir: string): Record<string, string> {
  if (handler === 'memory') return {};
  if (handler === 'database') return { INDIEWEB_MICROPUB_HANDLER: 'database' };
  return {
    INDIEWEB_MICROPUB_HANDLER: 'files',
    INDIEWEB_FILES_CONTENT_DIR: dir,
    INDIEWEB_FILES_SITE_URL: 'http://indiestack.test/sites/{user}',
    INDIEWEB_FILES_GIT: 'off',
  };
}

for (const handler of HANDLERS) {
  describe(`the ${handler} handler: category suggestions and publication dates`, () => {
    it('q=category lists the categories already used, and every q=source item (and the Posts page) shows when it was published', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-categories-'));
      const t = await buildAdminApp(handlerEnv(handler, dir));
      try {
        const { user, jar } = await addUser(t, 'alice');
        const { token } = await issueToken(t, user, { scope: 'create update' });
        expect((await postForm(t.app, token, { h: 'entry', content: 'First', category: ['indieweb', 'travel'] })).statusCode).toBe(201);
        expect((await postForm(t.app, token, { h: 'entry', content: 'Second', category: 'indieweb' })).statusCode).toBe(201);

        const categories = await micropubGet(t.app, token, { q: 'category' });
        expect(categories.statusCode).toBe(200);
        if (handler === 'memory') {
          // SPEC.md: the built-in (in-memory) handler answers empty categories; the Write page suggests from the posts instead
          expect(categories.json()).toEqual({ categories: [] });
        } else {
          expect(categories.json()).toEqual({ categories: ['indieweb', 'travel'] });
          const filtered = await micropubGet(t.app, token, { q: 'category', filter: 'trav' });
          expect(filtered.json()).toEqual({ categories: ['travel'] });
        }

        const source = await micropubGet(t.app, token, { q: 'source' });
        expect(source.statusCode).toBe(200);
        const items = (source.json() as { items: { properties: { published?: string[] } }[] }).items;
        expect(items).toHaveLength(2);
        for (const item of items) expect(item.properties.published?.[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);

        const posts = await getAdmin(t, jar, '/posts/');
        expect(posts.statusCode).toBe(200);
        const cells = [...posts.body.matchAll(/<tr><td>[\s\S]*?<\/td><td>[^<]*<\/td><td>([^<]*)<\/td>/g)].map((match) => match[1]);
        expect(cells).toHaveLength(2);
        for (const cell of cells) expect(cell).toMatch(/\d{4}-\d{2}-\d{2}/);
      } finally {
        await t.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
