import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isHandlerValueError } from '../../src/contracts/handler-errors.js';
import { createManualClock } from '../../src/core/clock.js';
import { createFilesHandler, type FilesHandlerOptions } from '../../src/content/handlers/files/handler.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-files-lifecycle-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ALICE = { id: 'user-alice', name: 'alice', me: ['https://alice.example/'], isActive: true };
const NOTES = 'https://alice.example/notes/2025/03';

/** A handler on a fresh content directory with a clock at 2025-03-04; `site(relative)` is a path in alice's site. */
function setup(options: Partial<FilesHandlerOptions> = {}) {
  const contentDir = mkdtempSync(path.join(root, 'site-'));
  const clock = createManualClock('2025-03-04T05:06:07.000Z');
  const handler = createFilesHandler({ baseUrl: 'https://id.example', contentDir, git: 'off', clock, ...options });
  const site = (relative: string) => path.join(contentDir, 'alice', relative);
  return { handler, clock, contentDir, site };
}

async function expectValueError(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(isHandlerValueError(error)).toBe(true);
}

describe('files handler: slugs', () => {
  it('takes mp-slug first, then name, then a short random id', async () => {
    const { handler } = setup();
    expect(
      (
        await handler.createEntry(
          { type: ['h-entry'], properties: { 'mp-slug': ['Chosen Slug'], name: ['Ignored Name'], content: ['x'] } },
          ALICE,
        )
      ).url,
    ).toBe('https://alice.example/articles/2025/03/chosen-slug/');
    expect((await handler.createEntry({ type: ['h-entry'], properties: { name: ['Crème Brûlée à la 東京'] } }, ALICE)).url).toBe(
      `https://alice.example/articles/2025/03/${encodeURIComponent('crème-brûlée-à-la-東京')}/`,
    );
    expect((await handler.createEntry({ type: ['h-entry'], properties: { content: ['no name'] } }, ALICE)).url).toMatch(
      /^https:\/\/alice\.example\/notes\/2025\/03\/[a-z0-9]{8}\/$/,
    );
  });

  it('adds -2, -3… when the slug is taken, also by a deleted entry', async () => {
    const { handler, site } = setup();
    const create = () => handler.createEntry({ type: ['h-entry'], properties: { content: ['same'], 'mp-slug': ['same'] } }, ALICE);
    const first = await create();
    expect((await create()).url).toBe(`${NOTES}/same-2/`);
    await handler.deleteEntry(first.url, ALICE);
    expect((await create()).url).toBe(`${NOTES}/same-3/`);
    expect(existsSync(site('content/notes/2025/03/same-3.md'))).toBe(true);
    expect((await handler.undeleteEntry(first.url, ALICE)).url).toBe(`${NOTES}/same/`);
  });

  it('avoids a slug whose URL another post type’s template already answers', async () => {
    const { handler } = setup({
      templates: {
        article: { path: 'content/articles/{slug}.md', url: '{site}/{slug}/' },
        note: { path: 'content/notes/{slug}.md', url: '{site}/{slug}/' },
      },
    });
    const article = await handler.createEntry({ type: ['h-entry'], properties: { name: ['Shared'] } }, ALICE);
    const note = await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': ['shared'] } }, ALICE);
    expect([article.url, note.url]).toEqual(['https://alice.example/shared/', 'https://alice.example/shared-2/']);
    expect((await handler.getEntry(note.url, ALICE))?.properties.content).toEqual(['x']);
  });

  it('keeps a long slug within 60 characters, suffix included', async () => {
    const { handler } = setup();
    const long = 'word '.repeat(40);
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': [long] } }, ALICE);
    const second = await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': [long] } }, ALICE);
    const slug = decodeURIComponent(second.url.split('/').at(-2)!);
    expect(slug.length).toBeLessThanOrEqual(60);
    expect(slug.endsWith('-2')).toBe(true);
  });
});

describe('files handler: update, delete and undelete on files', () => {
  it('update rewrites the file in place (a new file renamed over the old one) and keeps its path and URL', async () => {
    const { handler, site } = setup();
    const created = await handler.createEntry(
      { type: ['h-entry'], properties: { content: ['before'], category: ['a'], 'mp-slug': ['post'] } },
      ALICE,
    );
    const file = site('content/notes/2025/03/post.md');
    const inodeBefore = statSync(file).ino;
    const updated = await handler.updateEntry(
      created.url,
      { replace: { content: ['after'] }, add: { category: ['b'], syndication: ['https://elsewhere.example/1'] } },
      ALICE,
    );
    expect(updated.url).toBe(created.url);
    expect(updated.properties).toEqual({
      content: ['after'],
      category: ['a', 'b'],
      syndication: ['https://elsewhere.example/1'],
      published: ['2025-03-04T05:06:07Z'],
    });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('tags:\n  - a\n  - b\n');
    expect(text.endsWith('\nafter\n')).toBe(true);
    expect(statSync(file).ino).not.toBe(inodeBefore);
    expect(readdirSync(site('.indiestack/tmp'))).toEqual([]);
  });

  it('update keeps keys the site generator uses (draft, layout, aliases) and the file’s own format', async () => {
    const { handler, site } = setup();
    const file = site('content/notes/2025/01/by-hand.md');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      '+++\ndate = 2025-01-02T03:04:05Z\ndraft = true\nlayout = "special"\naliases = ["/old/"]\n+++\n\nWritten by hand.\n',
    );
    const url = `https://alice.example/notes/2025/01/by-hand/`;
    expect((await handler.getEntry(url, ALICE))?.properties).toEqual({
      published: ['2025-01-02T03:04:05.000Z'],
      content: ['Written by hand.'],
    });
    await handler.updateEntry(url, { add: { category: ['edited'] } }, ALICE);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('+++\n')).toBe(true);
    expect(text).toContain('draft = true');
    expect(text).toContain('layout = "special"');
    expect(text).toContain('aliases = [ "/old/" ]');
    expect((await handler.getEntry(url, ALICE))?.properties.category).toEqual(['edited']);
  });

  it('delete moves the file to the trash (pruning empty folders) and undelete puts the same bytes back', async () => {
    const { handler, site } = setup();
    const created = await handler.createEntry({ type: ['h-entry'], properties: { content: ['keep me'], 'mp-slug': ['gone'] } }, ALICE);
    const file = site('content/notes/2025/03/gone.md');
    const bytes = readFileSync(file, 'utf8');
    await handler.deleteEntry(created.url, ALICE);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(site('content/notes/2025'))).toBe(false);
    expect(readFileSync(site('.indiestack/trash/content/notes/2025/03/gone.md'), 'utf8')).toBe(bytes);
    expect(await handler.getEntry(created.url, ALICE)).toBe(null);
    expect((await handler.listEntries(ALICE, { limit: null, offset: 0, filter: null })).items).toEqual([]);
    await expectValueError(handler.deleteEntry(created.url, ALICE));
    await expectValueError(handler.updateEntry(created.url, { replace: { content: ['x'] } }, ALICE));

    const restored = await handler.undeleteEntry(created.url, ALICE);
    expect(restored).toEqual({ url: created.url, type: ['h-entry'], properties: created.properties });
    expect(readFileSync(file, 'utf8')).toBe(bytes);
    expect(existsSync(site('.indiestack/trash/content/notes/2025/03/gone.md'))).toBe(false);
    await expectValueError(handler.undeleteEntry(created.url, ALICE));
  });

  it('undelete refuses to overwrite a file written at the same place meanwhile', async () => {
    const { handler, site } = setup();
    const created = await handler.createEntry({ type: ['h-entry'], properties: { content: ['old'], 'mp-slug': ['spot'] } }, ALICE);
    await handler.deleteEntry(created.url, ALICE);
    const file = site('content/notes/2025/03/spot.md');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '---\n---\n\nnew by hand\n');
    await expectValueError(handler.undeleteEntry(created.url, ALICE));
    expect(readFileSync(file, 'utf8')).toBe('---\n---\n\nnew by hand\n');
  });
});

describe('files handler: reading the site', () => {
  it('lists live entries newest first with filter, offset and limit, and a total', async () => {
    const { handler, clock } = setup();
    for (const [index, word] of ['alpha', 'beta', 'gamma', 'delta'].entries()) {
      clock.set(`2025-03-0${index + 1}T10:00:00Z`);
      await handler.createEntry(
        { type: ['h-entry'], properties: { content: [`${word}${index % 2 === 0 ? ' even' : ''}`], 'mp-slug': [word] } },
        ALICE,
      );
    }
    const all = await handler.listEntries(ALICE, { limit: null, offset: 0, filter: null });
    expect(all.items.map((item) => item.properties.content)).toEqual([['delta'], ['gamma even'], ['beta'], ['alpha even']]);
    expect(all.items[0]).toEqual({
      url: `${NOTES}/delta/`,
      type: ['h-entry'],
      properties: { content: ['delta'], published: ['2025-03-04T10:00:00Z'], url: [`${NOTES}/delta/`] },
    });
    expect(await handler.listEntries(ALICE, { limit: 1, offset: 1, filter: 'EVEN' })).toEqual({
      items: [expect.objectContaining({ url: `${NOTES}/alpha/` })],
      total: 2,
    });
  });

  it('get_config lists the categories found in the files, once each, sorted', async () => {
    const { handler, site } = setup();
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], category: ['zebra', 'apple'] } }, ALICE);
    await handler.createEntry({ type: ['h-entry'], properties: { name: ['y'], category: ['apple', 'mango'] } }, ALICE);
    mkdirSync(site('content/notes/2024/12'), { recursive: true });
    writeFileSync(site('content/notes/2024/12/hand.md'), '---\ntags: [kiwi]\n---\n');
    const config = await handler.getConfig(ALICE);
    expect(config.categories).toEqual(['apple', 'kiwi', 'mango', 'zebra']);
    expect(config['post-types']?.map((type) => type.type)).toEqual([
      'note',
      'article',
      'photo',
      'audio',
      'video',
      'reply',
      'bookmark',
      'like',
      'repost',
      'event',
      'rsvp',
    ]);
    expect(config.q).toContain('source');
  });

  it('skips files it cannot read (broken front matter, other names, hidden folders) and says so in the log', async () => {
    const warn = vi.fn();
    const { handler, site } = setup({ log: { warn, error: vi.fn() } });
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['fine'], 'mp-slug': ['fine'] } }, ALICE);
    writeFileSync(site('content/notes/2025/03/broken.md'), '---\ntitle: [unclosed\n---\n');
    writeFileSync(site('content/notes/2025/03/readme.txt'), 'not a post');
    mkdirSync(site('content/notes/2025/.drafts'), { recursive: true });
    writeFileSync(site('content/notes/2025/.drafts/x.md'), '---\n---\nhidden');
    const listed = await handler.listEntries(ALICE, { limit: null, offset: 0, filter: null });
    expect(listed.items.map((item) => item.url)).toEqual([`${NOTES}/fine/`]);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ file: 'content/notes/2025/03/broken.md' }), expect.any(String));
  });

  it('finds an entry by relative URL, without its trailing slash, or with its slug percent-encoded', async () => {
    const { handler } = setup();
    const created = await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': ['café'] } }, ALICE);
    expect(created.url).toBe(`${NOTES}/caf%C3%A9/`);
    for (const url of [
      '/notes/2025/03/caf%C3%A9/',
      `${NOTES}/caf%C3%A9`,
      `${NOTES}/caf%c3%a9/`,
      `${NOTES}/café/`,
      'HTTPS://ALICE.EXAMPLE/notes/2025/03/caf%C3%A9/',
    ]) {
      expect((await handler.getEntry(url, ALICE))?.url, url).toBe(created.url);
    }
    for (const url of [
      `${NOTES}/caf%C3%A9/?x=1`,
      `${NOTES}/caf%C3%A9/#top`,
      `${NOTES}/CAF%C3%89/`,
      `http://alice.example/notes/2025/03/caf%C3%A9/`,
      `${NOTES}/caf%C3%A9//`,
    ]) {
      expect(await handler.getEntry(url, ALICE), url).toBe(null);
    }
  });
});

describe('files handler: values files keep exactly', () => {
  it.each([
    ['html with its text', [{ html: '<p>Hi</p>', value: 'Hi' }]],
    ['text with markup characters, CRLF and edges', ['  # not a heading\r\n---\r\n+++ and trailing space  \n\n']],
    ['an empty string', ['']],
    ['two values', ['one', 'two']],
    ['an object that is not html', [{ value: 'plain' }]],
  ])('content: %s', async (_name, content) => {
    for (const frontMatter of ['yaml', 'toml'] as const) {
      const { handler } = setup({ frontMatter });
      const created = await handler.createEntry({ type: ['h-entry'], properties: { content } }, ALICE);
      expect((await handler.getEntry(created.url, ALICE))?.properties.content, frontMatter).toEqual(content);
    }
  });

  it('properties named like site-generator keys (url, layout, title) or not fitting their key (a structured name) stay properties, kept under mf2', async () => {
    const { handler, site } = setup();
    const properties = {
      url: ['https://event.example/'],
      layout: ['grid'],
      title: ['not the name'],
      name: [{ value: 'structured name' }],
      content: ['x'],
      'mp-slug': ['keys'],
    };
    const created = await handler.createEntry({ type: ['h-entry'], properties }, ALICE);
    expect(readFileSync(site('content/notes/2025/03/keys.md'), 'utf8')).toContain('mf2:\n  url:\n');
    const { 'mp-slug': _slug, ...expected } = properties;
    expect((await handler.getEntry(created.url, ALICE))?.properties).toEqual({ ...expected, published: ['2025-03-04T05:06:07Z'] });
  });

  it('400s (HandlerValueError) for what a file cannot hold: odd property names, null in TOML, non-h types', async () => {
    const yaml = setup().handler;
    const toml = setup({ frontMatter: 'toml' }).handler;
    await expectValueError(
      yaml.createEntry(
        { type: ['h-entry'], properties: JSON.parse('{"__proto__": ["x"], "content": ["x"]}') as Record<string, unknown[]> },
        ALICE,
      ),
    );
    await expectValueError(yaml.createEntry({ type: ['h-entry'], properties: { 'a b': ['x'] } }, ALICE));
    await expectValueError(toml.createEntry({ type: ['h-entry'], properties: { content: ['x'], extra: [null] } }, ALICE));
    await expectValueError(yaml.createEntry({ type: ['entry'], properties: { content: ['x'] } }, ALICE));
    const created = await toml.createEntry({ type: ['h-entry'], properties: { content: ['x'] } }, ALICE);
    await expectValueError(toml.updateEntry(created.url, { add: { extra: [null] } }, ALICE));
  });
});
