import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import type { MicropubProperties } from '../../src/contracts/micropub-types.js';
import { createManualClock } from '../../src/core/clock.js';
import { createFilesHandler } from '../../src/content/handlers/files/handler.js';
import { BUILT_IN_POST_TYPES } from '../../src/content/handlers/entry-rules.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-files-layout-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ALICE = { id: 'user-alice', name: 'alice', me: ['https://alice.example/'], isActive: true };
const CLOCK_START = '2025-03-04T05:06:07.890Z';
const NOW = '2025-03-04T05:06:07Z';

interface Case {
  readonly postType: string;
  readonly type?: string[];
  readonly properties: MicropubProperties;
  readonly file: string;
  readonly url: string;
  readonly front: Record<string, unknown>;
  readonly body: string | null;
}

/** One entry of every built-in post type, as a client would send it, and the file it becomes. */
const CASES: readonly Case[] = [
  {
    postType: 'note',
    properties: { content: ['Just a *note*.'], 'mp-slug': ['first-note'] },
    file: 'content/notes/2025/03/first-note.md',
    url: 'https://alice.example/notes/2025/03/first-note/',
    front: { date: NOW, slug: 'first-note', 'post-type': 'note' },
    body: 'Just a *note*.',
  },
  {
    postType: 'article',
    properties: { name: ['My First Article'], content: [{ html: '<p>Long <em>form</em>.</p>' }], category: ['indieweb', 'writing'] },
    file: 'content/articles/2025/03/my-first-article.md',
    url: 'https://alice.example/articles/2025/03/my-first-article/',
    front: {
      title: 'My First Article',
      date: NOW,
      slug: 'my-first-article',
      'post-type': 'article',
      tags: ['indieweb', 'writing'],
      'content-format': 'html',
    },
    body: '<p>Long <em>form</em>.</p>',
  },
  {
    postType: 'photo',
    properties: {
      photo: [{ value: 'https://alice.example/media/sunset.jpg', alt: 'A red sunset' }],
      content: ['Sunset'],
      category: ['sky'],
      'mp-slug': ['sunset'],
    },
    file: 'content/photos/2025/03/sunset.md',
    url: 'https://alice.example/photos/2025/03/sunset/',
    front: {
      date: NOW,
      slug: 'sunset',
      'post-type': 'photo',
      tags: ['sky'],
      photo: { value: 'https://alice.example/media/sunset.jpg', alt: 'A red sunset' },
    },
    body: 'Sunset',
  },
  {
    postType: 'audio',
    properties: { audio: ['https://alice.example/media/song.mp3'], content: ['Listen'], 'mp-slug': ['song'] },
    file: 'content/audio/2025/03/song.md',
    url: 'https://alice.example/audio/2025/03/song/',
    front: { date: NOW, slug: 'song', 'post-type': 'audio', audio: 'https://alice.example/media/song.mp3' },
    body: 'Listen',
  },
  {
    postType: 'video',
    properties: { video: ['https://alice.example/media/clip.mp4', 'https://alice.example/media/clip.webm'], 'mp-slug': ['clip'] },
    file: 'content/videos/2025/03/clip.md',
    url: 'https://alice.example/videos/2025/03/clip/',
    front: {
      date: NOW,
      slug: 'clip',
      'post-type': 'video',
      video: ['https://alice.example/media/clip.mp4', 'https://alice.example/media/clip.webm'],
    },
    body: null,
  },
  {
    postType: 'reply',
    properties: { 'in-reply-to': ['https://bob.example/posts/1'], content: ['Great post!'], 'mp-slug': ['great-post'] },
    file: 'content/replies/2025/03/great-post.md',
    url: 'https://alice.example/replies/2025/03/great-post/',
    front: { date: NOW, slug: 'great-post', 'post-type': 'reply', 'in-reply-to': 'https://bob.example/posts/1' },
    body: 'Great post!',
  },
  {
    postType: 'bookmark',
    properties: { 'bookmark-of': ['https://example.com/essay'], name: ['An essay worth reading'] },
    file: 'content/bookmarks/2025/03/an-essay-worth-reading.md',
    url: 'https://alice.example/bookmarks/2025/03/an-essay-worth-reading/',
    front: {
      title: 'An essay worth reading',
      date: NOW,
      slug: 'an-essay-worth-reading',
      'post-type': 'bookmark',
      'bookmark-of': 'https://example.com/essay',
    },
    body: null,
  },
  {
    postType: 'like',
    properties: { 'like-of': ['https://bob.example/posts/2'], 'mp-slug': ['liked'] },
    file: 'content/likes/2025/03/liked.md',
    url: 'https://alice.example/likes/2025/03/liked/',
    front: { date: NOW, slug: 'liked', 'post-type': 'like', 'like-of': 'https://bob.example/posts/2' },
    body: null,
  },
  {
    postType: 'repost',
    properties: { 'repost-of': ['https://bob.example/posts/3'], 'mp-slug': ['shared'] },
    file: 'content/reposts/2025/03/shared.md',
    url: 'https://alice.example/reposts/2025/03/shared/',
    front: { date: NOW, slug: 'shared', 'post-type': 'repost', 'repost-of': 'https://bob.example/posts/3' },
    body: null,
  },
  {
    postType: 'event',
    type: ['h-event'],
    properties: {
      name: ['Homebrew Website Club'],
      start: ['2025-03-20T18:00:00+01:00'],
      location: ['Café Central'],
      published: ['2025-02-28T09:30:00+01:00'],
    },
    file: 'content/events/2025/02/homebrew-website-club.md',
    url: 'https://alice.example/events/2025/02/homebrew-website-club/',
    front: {
      title: 'Homebrew Website Club',
      date: '2025-02-28T09:30:00+01:00',
      slug: 'homebrew-website-club',
      'post-type': 'event',
      h: 'event',
      start: '2025-03-20T18:00:00+01:00',
      location: 'Café Central',
    },
    body: null,
  },
  {
    postType: 'rsvp',
    properties: { rsvp: ['yes'], 'in-reply-to': ['https://bob.example/events/hwc'], content: ['See you there'], 'mp-slug': ['going'] },
    file: 'content/rsvps/2025/03/going.md',
    url: 'https://alice.example/rsvps/2025/03/going/',
    front: { date: NOW, slug: 'going', 'post-type': 'rsvp', rsvp: 'yes', 'in-reply-to': 'https://bob.example/events/hwc' },
    body: 'See you there',
  },
];

function splitFile(text: string, delimiter: '---' | '+++'): { front: string; body: string | null } {
  const [, front = '', rest = ''] = text.split(new RegExp(`^\\${delimiter[0]}{3}\\n`, 'm'));
  return { front, body: rest === '' ? null : rest.replace(/^\n/, '').replace(/\n$/, '') };
}

describe('files handler: the site it builds', () => {
  it('covers every built-in post type', () => {
    expect(CASES.map((c) => c.postType).sort()).toEqual(BUILT_IN_POST_TYPES.map((p) => p.type).sort());
  });

  for (const format of ['yaml', 'toml'] as const) {
    it(`writes one ${format.toUpperCase()} file per post type at its template path, properties in front matter and content as the body`, async () => {
      const contentDir = path.join(root, format);
      const handler = createFilesHandler({
        baseUrl: 'https://id.example',
        contentDir,
        frontMatter: format,
        git: 'off',
        clock: createManualClock(CLOCK_START),
      });
      for (const c of CASES) {
        const created = await handler.createEntry({ type: c.type ?? ['h-entry'], properties: c.properties }, ALICE);
        expect(created.url, c.postType).toBe(c.url);
        const text = readFileSync(path.join(contentDir, 'alice', c.file), 'utf8');
        const { front, body } = splitFile(text, format === 'yaml' ? '---' : '+++');
        expect(format === 'yaml' ? parseYaml(front) : JSON.parse(JSON.stringify(parseToml(front))), c.postType).toEqual(c.front);
        expect(body, c.postType).toBe(c.body);
        const { 'mp-slug': _slug, ...stored } = c.properties;
        expect((await handler.getEntry(c.url, ALICE))?.properties, c.postType).toEqual({ published: [NOW], ...stored });
      }
    });
  }

  it('writes YAML front matter between --- lines, a blank line, then the body', async () => {
    const contentDir = path.join(root, 'exact');
    const handler = createFilesHandler({ baseUrl: 'https://id.example', contentDir, git: 'off', clock: createManualClock(CLOCK_START) });
    await handler.createEntry(
      { type: ['h-entry'], properties: { name: ['Hello: World'], content: ['Line one\n\nLine two'], category: ['a'] } },
      ALICE,
    );
    expect(readFileSync(path.join(contentDir, 'alice/content/articles/2025/03/hello-world.md'), 'utf8')).toBe(
      '---\ntitle: "Hello: World"\ndate: 2025-03-04T05:06:07Z\nslug: hello-world\npost-type: article\ntags:\n  - a\n---\n\nLine one\n\nLine two\n',
    );
  });

  it('writes TOML front matter between +++ lines (Hugo’s convention)', async () => {
    const contentDir = path.join(root, 'exact-toml');
    const handler = createFilesHandler({
      baseUrl: 'https://id.example',
      contentDir,
      frontMatter: 'toml',
      git: 'off',
      clock: createManualClock(CLOCK_START),
    });
    await handler.createEntry({ type: ['h-entry'], properties: { content: ['Hi'], 'mp-slug': ['hi'] } }, ALICE);
    expect(readFileSync(path.join(contentDir, 'alice/content/notes/2025/03/hi.md'), 'utf8')).toBe(
      '+++\ndate = "2025-03-04T05:06:07Z"\nslug = "hi"\npost-type = "note"\n+++\n\nHi\n',
    );
  });
});
