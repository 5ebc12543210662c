import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostUser } from '../../src/contracts/accounts.js';
import { isHandlerValueError } from '../../src/contracts/handler-errors.js';
import { createManualClock } from '../../src/core/clock.js';
import { createFilesHandler, type FilesHandlerOptions } from '../../src/content/handlers/files/handler.js';
import { isInside } from '../../src/content/handlers/files/site-directory.js';
import { sanitizeSlug } from '../../src/content/handlers/files/templates.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-files-paths-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ALICE: HostUser = { id: 'user-alice', name: 'alice', me: ['https://alice.example/'], isActive: true };

function setup(options: Partial<FilesHandlerOptions> = {}) {
  const dir = mkdtempSync(path.join(root, 'case-'));
  const contentDir = path.join(dir, 'content');
  const outside = path.join(dir, 'outside');
  mkdirSync(outside);
  const handler = createFilesHandler({
    baseUrl: 'https://id.example',
    contentDir,
    git: 'off',
    clock: createManualClock('2025-03-04T05:06:07Z'),
    ...options,
  });
  return { handler, contentDir, outside, dir };
}

/** Every file below `dir`, relative, hidden state folders included. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

const HOSTILE = [
  '../../../etc/passwd',
  '/etc/passwd',
  'C:\\Windows\\win.ini',
  'a\u0000b',
  '..\uff0f..\uff0fetc',
  '\uff0e\uff0e/\uff0e\uff0e/x',
  '\u2024\u2024',
  '\u2025',
  'a\u2215b\u2044c',
  '\u202eexe.txt',
  '.hidden',
  '..',
  '%2e%2e%2f',
  'x'.repeat(5000),
  '\u{1F600}'.repeat(300),
  '\u0301\u0301',
];

describe('files handler: paths never leave the content directory', () => {
  it.each(HOSTILE.map((slug) => [JSON.stringify(slug).slice(0, 40), slug]))(
    'mp-slug %s becomes a plain slug inside alice’s notes',
    async (_label, slug) => {
      const { handler, contentDir, dir } = setup();
      const created = await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': [slug] } }, ALICE);
      const written = filesBelow(dir).filter((file) => file.endsWith('.md'));
      expect(written).toHaveLength(1);
      expect(written[0]).toMatch(/^content\/alice\/content\/notes\/2025\/03\/[\p{L}\p{M}\p{N}]+(-[\p{L}\p{M}\p{N}]+)*\.md$/u);
      expect([...path.basename(written[0]!, '.md')].length).toBeLessThanOrEqual(60);
      expect(Buffer.byteLength(path.basename(written[0]!))).toBeLessThan(255);
      expect(isInside(path.join(dir, written[0]!), contentDir)).toBe(true);
      expect((await handler.getEntry(created.url, ALICE))?.properties.content).toEqual(['x']);
    },
  );

  it('a hostile name is cleaned the same way when it becomes the slug', async () => {
    const { handler } = setup();
    const created = await handler.createEntry({ type: ['h-entry'], properties: { name: ['../../Secret／Plans\u0000'] } }, ALICE);
    expect(created.url).toBe('https://alice.example/articles/2025/03/secret-plans/');
  });

  it('look-alike characters are normalised before they are dropped', () => {
    expect(sanitizeSlug('\uff0e\uff0e\uff0fetc\uff0fpasswd')).toBe('etc-passwd');
    expect(sanitizeSlug('ＡＢＣ１２３')).toBe('abc123');
    expect(sanitizeSlug('\u2025/\u2024')).toBe('');
  });

  it('a published date that is not a date never reaches the path', async () => {
    const { handler, dir } = setup();
    await handler.createEntry(
      { type: ['h-entry'], properties: { content: ['x'], published: ['../../1999-01-01'], 'mp-slug': ['p'] } },
      ALICE,
    );
    await handler.createEntry(
      { type: ['h-entry'], properties: { content: ['x'], published: ['2024-01-01/../../../x'], 'mp-slug': ['q'] } },
      ALICE,
    );
    expect(
      filesBelow(dir)
        .filter((file) => file.endsWith('.md'))
        .sort(),
    ).toEqual(['content/alice/content/notes/2024/01/q.md', 'content/alice/content/notes/2025/03/p.md']);
  });

  it.each([
    ['../evil', 'evil'],
    ['/etc', 'etc'],
    ['a/b\\c', 'a-b-c'],
    ['..', null],
    ['.', null],
    ['', null],
    ['\u0000', null],
    ['ＢＯＢ', 'bob'],
    ['x'.repeat(300), 'x'.repeat(64)],
  ])('account name %j gets a site directory inside the content directory', async (name, expected) => {
    const { handler, contentDir } = setup();
    await handler.createEntry(
      { type: ['h-entry'], properties: { content: ['x'] } },
      { id: `id-${name}`, name, me: ['https://someone.example/'], isActive: true },
    );
    const [dir, ...others] = readdirSync(contentDir);
    expect(others).toEqual([]);
    if (expected === null) expect(dir).toMatch(/^user-[0-9a-f]{12}$/);
    else expect(dir).toBe(expected);
  });

  it('two accounts whose names map to one directory: the second is refused, the first keeps its files', async () => {
    const { handler, contentDir } = setup();
    const first = await handler.createEntry({ type: ['h-entry'], properties: { content: ['mine'] } }, ALICE);
    const twin: HostUser = { id: 'user-twin', name: 'ALICE', me: ['https://alice.example/'], isActive: true };
    const refused = await handler.createEntry({ type: ['h-entry'], properties: { content: ['theirs'] } }, twin).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Error);
    expect(isHandlerValueError(refused)).toBe(false);
    await expect(handler.getEntry(first.url, twin)).rejects.toThrow(/another account/);
    expect(filesBelow(contentDir).filter((file) => file.endsWith('.md'))).toHaveLength(1);
  });

  it('with INDIEWEB_FILES_USER_DIR=. the content directory is the site, and only its first account may post', async () => {
    const { handler, contentDir } = setup({ userDir: '.' });
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': ['solo'] } }, ALICE);
    expect(filesBelow(contentDir).sort()).toEqual(['.indiestack/.gitignore', '.indiestack/owner', 'content/notes/2025/03/solo.md']);
    await expect(
      handler.createEntry(
        { type: ['h-entry'], properties: { content: ['y'] } },
        { id: 'user-bob', name: 'bob', me: ['https://bob.example/'], isActive: true },
      ),
    ).rejects.toThrow(/another account/);
  });

  it.each([
    '../../../etc/passwd',
    '/etc/passwd',
    'file:///etc/passwd',
    'https://alice.example/notes/2025/03/..%2F..%2F..%2Fowner/',
    'https://alice.example/notes/2025/03/%2e%2e/',
    'https://alice.example/notes/2025/03/a%00b/',
    'https://alice.example/notes/2025/03/a%2Fb/',
    'https://alice.example/notes/2025/03/%EF%BC%8F/',
    'https://alice.example/../notes/2025/03/target/x/',
    'https://bob.example/notes/2025/03/target/',
    'https://user:pass@alice.example/notes/2025/03/target/',
    'not a url at all \u0000',
  ])('a URL like %j finds nothing and cannot be updated or deleted', async (url) => {
    const { handler } = setup();
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': ['target'] } }, ALICE);
    expect(await handler.getEntry(url, ALICE)).toBe(null);
    const update = await handler.updateEntry(url, { replace: { content: ['y'] } }, ALICE).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isHandlerValueError(update)).toBe(true);
    const removal = await handler.deleteEntry(url, ALICE).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isHandlerValueError(removal)).toBe(true);
  });

  it('a symbolic link inside the site that points outside is never written through nor read', async () => {
    const { handler, contentDir, outside } = setup();
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['x'], 'mp-slug': ['first'] } }, ALICE);
    symlinkSync(outside, path.join(contentDir, 'alice/content/likes'));
    await expect(handler.createEntry({ type: ['h-entry'], properties: { 'like-of': ['https://bob.example/'] } }, ALICE)).rejects.toThrow(
      /leads out of the site directory/,
    );
    expect(readdirSync(outside)).toEqual([]);

    writeFileSync(path.join(outside, 'secret.md'), '---\ntitle: secret\n---\n');
    symlinkSync(path.join(outside, 'secret.md'), path.join(contentDir, 'alice/content/notes/2025/03/linked.md'));
    expect(await handler.getEntry('https://alice.example/notes/2025/03/linked/', ALICE)).toBe(null);
    expect((await handler.listEntries(ALICE, { limit: null, offset: 0, filter: null })).items).toHaveLength(1);
  });

  it.each([
    [{ path: '../{slug}.md', url: '{site}/{slug}/' }],
    [{ path: '/etc/{slug}.md', url: '{site}/{slug}/' }],
    [{ path: 'content/.hidden/{slug}.md', url: '{site}/{slug}/' }],
    [{ path: 'content/{slug}.sh', url: '{site}/{slug}/' }],
    [{ path: 'content/notes.md', url: '{site}/notes/' }],
    [{ path: 'content/{yyyy}/{slug}.md', url: '{site}/{slug}/' }],
    [{ path: 'content/{slug}.md', url: 'https://elsewhere.example/{slug}/' }],
    [{ path: 'content/{unknown}/{slug}.md', url: '{site}/{unknown}/{slug}/' }],
    [{ path: 'content/{slug}.md', url: '{site}/{slug}/?q=1' }],
  ])('refuses templates that could leave the site or lose the URL ↔ file mapping: %j', (templates) => {
    expect(() => createFilesHandler({ baseUrl: 'https://id.example', contentDir: root, defaultTemplates: templates })).toThrow(
      /files handler/,
    );
  });

  it('refuses a user directory template that leaves the content directory', () => {
    for (const userDir of ['..', '../{user}', '/srv/{user}', '{user}/../..', '.{user}', '{name}']) {
      expect(() => createFilesHandler({ baseUrl: 'https://id.example', contentDir: root, userDir }), userDir).toThrow(/files handler/);
    }
  });
});
