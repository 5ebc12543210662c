import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { indieweb } from '../../src/app/plugin.js';
import { loadConfig } from '../../src/config/env.js';
import { loadEntryTemplates } from '../../src/entries/load-templates.js';
import { BUILT_IN_TEMPLATES, resolveEntryTemplates } from '../../src/entries/templates.js';
import { TEST_SECRET } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/databases.js';
import { entriesApp, parsePage, pathOf } from '../helpers/entries.js';
import { BASE_URL, createViaJson, HOST } from '../helpers/micropub.js';
import { randomUUID } from 'node:crypto';
import { profileUrlKey } from '../../src/core/url.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { CLIENT_ID } from '../helpers/indieauth.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-templates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The plugin in a bare host on the database handler, with alice; `entryPages` as given. */
async function mounted(entryPages?: Parameters<typeof indieweb>[1]['entryPages']) {
  const database = await openTestDatabase('sqlite');
  const app = Fastify();
  app.get('/about', async () => 'the host page');
  await app.register(indieweb, {
    database,
    config: loadConfig({ env: { INDIEWEB_BASE_URL: BASE_URL, INDIEWEB_MICROPUB_HANDLER: 'database' } }),
    secret: TEST_SECRET,
    worker: false,
    ...(entryPages === undefined ? {} : { entryPages }),
  });
  await app.ready();
  const me = 'https://alice.example/';
  await createUsersRepository(database.db).insert({
    id: randomUUID(),
    name: 'alice',
    passwordHash: 'x',
    profileUrls: [{ url: me, key: profileUrlKey(me)! }],
    now: new Date().toISOString(),
  });
  const user = (await app.indieweb.users!.findByName('alice'))!;
  const { token } = await app.indieweb.tokens.issue({ userId: user.id, clientId: CLIENT_ID, me, scope: 'create', expiresIn: 3600 });
  const url = await createViaJson(app, token, { name: ['Hosted'], content: ['In plugin mode'] });
  return {
    app,
    url,
    get: (p: string) => app.inject({ method: 'GET', url: p, headers: { host: HOST } }),
    close: async () => {
      await app.close();
      await database.dispose();
    },
  };
}

describe('plugin mode', () => {
  it('404 for the pages unless the host opts in; the host keeps its own routes', async () => {
    const host = await mounted();
    try {
      expect((await host.get(pathOf(host.url))).statusCode).toBe(404);
      expect((await host.get('/alice/')).statusCode).toBe(404);
      expect((await host.get('/about')).body).toBe('the host page');
    } finally {
      await host.close();
    }
  });

  it('200 with entryPages: true, in a host without ignoreTrailingSlash (the slashless URL still redirects)', async () => {
    const host = await mounted(true);
    try {
      expect((await host.get(pathOf(host.url))).statusCode).toBe(200);
      const redirect = await host.get(pathOf(host.url).slice(0, -1));
      expect(redirect.statusCode).toBe(301);
      expect(redirect.headers.location).toBe(host.url);
      expect((await host.get('/alice/')).statusCode).toBe(200);
      expect((await host.get('/about')).body).toBe('the host page');
    } finally {
      await host.close();
    }
  });

  it('uses the templates of entryPages.templates, built-in parts and stylesheet included', async () => {
    const host = await mounted({
      templates: {
        entry: (view) => `<div class="my-frame"><p>${view.mentions.replies.length} replies</p>${view.parts.article}</div>`,
        stylesheet: 'body{background:papayawhip}',
      },
    });
    try {
      const page = await host.get(pathOf(host.url));
      expect(page.body).toContain('<div class="my-frame"><p>0 replies</p>');
      const entry = parsePage(page.body).items.find((item) => item.type.includes('h-entry'));
      expect(entry?.properties.name).toEqual(['Hosted']);
      const stylesheet = parsePage(page.body).rels.stylesheet![0]!;
      expect((await host.get(new URL(stylesheet).pathname)).body).toBe('body{background:papayawhip}');
    } finally {
      await host.close();
    }
  });
});

describe('INDIEWEB_ENTRY_TEMPLATES (standalone)', () => {
  it('200 with the document of the module the setting names', async () => {
    const file = path.join(dir, 'site-templates.mjs');
    writeFileSync(
      file,
      'export const templates = { document: (view) => `<!doctype html><title>${view.title}</title><body class="custom">${view.body}</body>` };\n',
    );
    const t = await entriesApp({ env: { INDIEWEB_ENTRY_TEMPLATES: `${file}#templates` } });
    try {
      const url = await t.create({ name: ['Custom frame'] });
      const page = await t.get(pathOf(url));
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<body class="custom">');
      expect(parsePage(page.body).items[0]?.properties.name).toEqual(['Custom frame']);
    } finally {
      await t.close();
    }
  });

  it('falls back to the built-in templates, with one error logged, when the module cannot be loaded or is no templates object', async () => {
    const wrong = path.join(dir, 'wrong.mjs');
    writeFileSync(wrong, 'export default { entry: "not a function" };\n');
    for (const specifier of [path.join(dir, 'missing.mjs'), wrong, `${wrong}#nothing`]) {
      const logged: unknown[] = [];
      const log = { error: (...args: unknown[]) => logged.push(args) } as unknown as Parameters<typeof loadEntryTemplates>[2];
      await expect(loadEntryTemplates(true, { entryTemplates: specifier }, log)).resolves.toBe(BUILT_IN_TEMPLATES);
      expect(logged, specifier).toHaveLength(1);
    }
  });
});

describe('resolveEntryTemplates', () => {
  it('keeps the built-in templates for what a replacement leaves out', () => {
    const entry = () => 'mine';
    const resolved = resolveEntryTemplates({ entry });
    expect(resolved.entry).toBe(entry);
    expect(resolved.document).toBe(BUILT_IN_TEMPLATES.document);
    expect(resolved.stylesheet).toBe(BUILT_IN_TEMPLATES.stylesheet);
  });

  it('throws naming the problem: an unknown key, a non-function, a non-string stylesheet, a non-object', () => {
    expect(() => resolveEntryTemplates({ page: () => '' })).toThrow(/unknown key "page"/);
    expect(() => resolveEntryTemplates({ home: 'x' })).toThrow(/"home" must be a function/);
    expect(() => resolveEntryTemplates({ stylesheet: 1 })).toThrow(/stylesheet/);
    expect(() => resolveEntryTemplates('x')).toThrow(/must be an object/);
  });
});
