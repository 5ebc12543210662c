import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { ConfigError } from '../../src/core/errors.js';
import { resolveHandler } from '../../src/content/load-handler.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { addAlice, CLIENT_ID } from '../helpers/indieauth.js';
import { INVALID_REQUEST, micropubGet, postForm, postJson } from '../helpers/micropub.js';

const contentDir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-files-endpoint-'));
afterAll(() => rmSync(contentDir, { recursive: true, force: true }));

describe('POST /indieweb/micropub/ with INDIEWEB_MICROPUB_HANDLER=files', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        INDIEWEB_MICROPUB_HANDLER: 'files',
        INDIEWEB_FILES_CONTENT_DIR: contentDir,
        INDIEWEB_FILES_SITE_URL: 'http://indiestack.test/sites/{user}',
        INDIEWEB_FILES_GIT: 'off',
      },
    });
    await addAlice(t);
    const alice = (await t.app.indieweb.users!.findByName('alice'))!;
    ({ token } = await t.app.indieweb.tokens.issue({
      userId: alice.id,
      clientId: CLIENT_ID,
      me: alice.me[0]!,
      scope: 'create update delete undelete',
      expiresIn: 3600,
    }));
  });
  afterAll(() => t.close());

  /** The file a URL of alice's site maps to with the default templates. */
  const fileOf = (location: string) =>
    path.join(contentDir, 'alice', 'content', `${new URL(location).pathname.replace(/^\/sites\/alice\//, '').replace(/\/$/, '')}.md`);

  it('201 + Location, and the post appears as a Markdown file', async () => {
    const response = await postForm(t.app, token, {
      h: 'entry',
      content: 'Hello from a Micropub client',
      category: 'indieweb,files',
      'mp-slug': 'hello',
    });
    expect(response.statusCode).toBe(201);
    const location = response.headers.location as string;
    expect(location).toMatch(/^http:\/\/indiestack\.test\/sites\/alice\/notes\/\d{4}\/\d{2}\/hello\/$/);
    const text = readFileSync(fileOf(location), 'utf8');
    expect(text).toMatch(
      /^---\ndate: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\nslug: hello\npost-type: note\ntags:\n {2}- indieweb\n {2}- files\n---\n\nHello from a Micropub client\n$/,
    );
  });

  it('200 q=source answers the file’s properties; 204 update rewrites it', async () => {
    const location = (await postForm(t.app, token, { h: 'entry', name: 'A title', content: 'Body' })).headers.location as string;
    const source = await micropubGet(t.app, token, { q: 'source', url: location });
    expect(source.statusCode).toBe(200);
    expect(source.json()).toMatchObject({ type: ['h-entry'], properties: { name: ['A title'], content: ['Body'] } });
    const update = await postJson(t.app, token, { action: 'update', url: location, replace: { content: ['Edited body'] } });
    expect(update.statusCode).toBe(204);
    expect(readFileSync(fileOf(location), 'utf8').endsWith('\nEdited body\n')).toBe(true);
  });

  it('204 delete removes the file; 204 undelete brings it back', async () => {
    const location = (await postForm(t.app, token, { h: 'entry', content: 'Short-lived', 'mp-slug': 'short-lived' })).headers
      .location as string;
    const file = fileOf(location);
    expect((await postForm(t.app, token, { action: 'delete', url: location })).statusCode).toBe(204);
    expect(existsSync(file)).toBe(false);
    expect((await micropubGet(t.app, token, { q: 'source', url: location })).statusCode).toBe(400);
    expect([201, 204]).toContain((await postForm(t.app, token, { action: 'undelete', url: location })).statusCode);
    expect(readFileSync(file, 'utf8')).toContain('Short-lived');
  });

  it('200 q=source lists the files and q=category the categories found in them', async () => {
    const list = await micropubGet(t.app, token, { q: 'source', limit: '50' });
    expect(list.statusCode).toBe(200);
    expect((list.json() as { items: unknown[] }).items.length).toBeGreaterThanOrEqual(3);
    const categories = await micropubGet(t.app, token, { q: 'category' });
    expect(categories.json()).toEqual({ categories: ['files', 'indieweb'] });
  });

  it('400 invalid_request for a URL outside alice’s site', async () => {
    const response = await postJson(t.app, token, {
      action: 'update',
      url: 'http://indiestack.test/sites/alice/notes/2025/01/..%2F..%2Fowner/',
      replace: { content: ['x'] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
  });
});

describe('the files handler with its default site URL (the profile URL)', () => {
  let t: TestApp;
  let token: string;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-files-site-'));

  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_MICROPUB_HANDLER: 'files', INDIEWEB_FILES_CONTENT_DIR: dir, INDIEWEB_FILES_GIT: 'off' } });
    await addAlice(t);
    const alice = (await t.app.indieweb.users!.findByName('alice'))!;
    ({ token } = await t.app.indieweb.tokens.issue({
      userId: alice.id,
      clientId: CLIENT_ID,
      me: alice.me[0]!,
      scope: 'create update delete undelete',
      expiresIn: 3600,
    }));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('201 puts the post on the site’s host, and update and delete accept that URL', async () => {
    const location = (await postForm(t.app, token, { h: 'entry', content: 'On my own site', 'mp-slug': 'own-site' })).headers
      .location as string;
    expect(new URL(location).host).toBe('alice.example');
    expect((await postJson(t.app, token, { action: 'update', url: location, replace: { content: ['Edited'] } })).statusCode).toBe(204);
    expect((await micropubGet(t.app, token, { q: 'source', url: location })).json()).toMatchObject({ properties: { content: ['Edited'] } });
    expect((await postForm(t.app, token, { action: 'delete', url: location })).statusCode).toBe(204);
  });

  it('400 invalid_request for the same path on another host', async () => {
    const location = (await postForm(t.app, token, { h: 'entry', content: 'Stays', 'mp-slug': 'stays' })).headers.location as string;
    const elsewhere = new URL(new URL(location).pathname, 'https://evil.example/').href;
    const response = await postForm(t.app, token, { action: 'delete', url: elsewhere });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect((await micropubGet(t.app, token, { q: 'source', url: location })).statusCode).toBe(200);
  });
});

describe('INDIEWEB_FILES_* settings', () => {
  it('default to YAML files under DATA_DIR/sites/{user}, the profile URL as site, and git commits', () => {
    const config = loadConfig({ env: { INDIEWEB_DATA_DIR: '/srv/indiestack' } });
    expect(config.files).toEqual({
      contentDir: '/srv/indiestack/sites',
      userDir: '{user}',
      siteUrl: null,
      frontMatter: 'yaml',
      defaultTemplates: { path: 'content/{section}/{yyyy}/{MM}/{slug}.md', url: '{site}/{section}/{yyyy}/{MM}/{slug}/' },
      templates: {},
      git: 'commit',
      gitRemote: 'origin',
    });
  });

  it('parse per-type templates, TOML and push', () => {
    const config = loadConfig({
      env: {
        INDIEWEB_FILES_FRONT_MATTER: 'toml',
        INDIEWEB_FILES_GIT: 'push',
        INDIEWEB_FILES_GIT_REMOTE: 'git@github.com:alice/site.git',
        INDIEWEB_FILES_SITE_URL: 'https://{user}.example.com/',
        INDIEWEB_FILES_TEMPLATES:
          'like=data/likes/{yyyy}/{slug}.md={site}/likes/{yyyy}/{slug}/, article=content/posts/{slug}/index.md={site}/posts/{slug}/',
      },
    });
    expect(config.files).toMatchObject({
      frontMatter: 'toml',
      git: 'push',
      gitRemote: 'git@github.com:alice/site.git',
      siteUrl: 'https://{user}.example.com',
      templates: {
        like: { path: 'data/likes/{yyyy}/{slug}.md', url: '{site}/likes/{yyyy}/{slug}/' },
        article: { path: 'content/posts/{slug}/index.md', url: '{site}/posts/{slug}/' },
      },
    });
  });

  it('report every invalid value at once', () => {
    let error: unknown;
    try {
      loadConfig({
        env: {
          INDIEWEB_FILES_FRONT_MATTER: 'json',
          INDIEWEB_FILES_GIT: 'sometimes',
          INDIEWEB_FILES_GIT_REMOTE: '--upload-pack=touch /tmp/x',
          INDIEWEB_FILES_SITE_URL: 'ftp://example.com',
          INDIEWEB_FILES_USER_DIR: '../{user}',
          INDIEWEB_FILES_PATH_TEMPLATE: '../{slug}.md',
          INDIEWEB_FILES_TEMPLATES: 'like=x, unknown=a/{slug}.md={site}/{slug}/, note=content/{slug}.md={site}/{yyyy}/{slug}/',
        },
      });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of [
      'FRONT_MATTER',
      'GIT:',
      'GIT_REMOTE',
      'SITE_URL',
      'USER_DIR',
      'PATH_TEMPLATE',
      'TEMPLATES: "like=x"',
      'TEMPLATES: "unknown"',
      'TEMPLATES: note',
    ]) {
      expect(problems, name).toContain(`INDIEWEB_FILES_${name}`);
    }
  });

  it('INDIEWEB_MICROPUB_HANDLER=files selects the files handler', async () => {
    const resolved = await resolveHandler(
      loadConfig({ env: { INDIEWEB_MICROPUB_HANDLER: 'files', INDIEWEB_FILES_CONTENT_DIR: contentDir } }),
      undefined,
      process.cwd(),
    );
    expect(resolved.inMemory).toBe(false);
    expect(typeof (resolved.handler as { gitStatus?: unknown }).gitStatus).toBe('function');
  });
});
