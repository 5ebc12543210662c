/**
 * `indiestack webmention import FILE` and `indiestack webmention export`, run
 * as the built bin against the SQLite file of an in-process app, whose
 * webmention.io-compatible API then answers with what was imported. The
 * fixtures follow the shapes webmention.io's API documents (mentions.jf2 and
 * the older mentions.json).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/webmention-io/', import.meta.url));
const JF2 = path.join(FIXTURES, 'mentions.jf2.json');
const LINKS = path.join(FIXTURES, 'mentions.json');

type Jf2Entry = Record<string, unknown> & { author: Record<string, unknown> };

async function appWithUsers(): Promise<TestApp> {
  const t = await buildTestApp();
  for (const name of ['alice', 'bob'])
    await t.app.indieweb.users!.addUser({ name, me: [`https://${name}.example/`], password: `${name} password 1` });
  return t;
}

async function api(t: TestApp, query: string): Promise<{ status: number; json: { children: Jf2Entry[] } & Record<string, unknown> }> {
  const response = await t.app.inject({ method: 'GET', url: `/indieweb/webmention/api/${query}` });
  return { status: response.statusCode, json: response.json() };
}

const rows = (t: TestApp) => t.database.db.selectFrom('indieweb_webmention').selectAll().orderBy('created_at').execute();

describe('indiestack webmention import and export', () => {
  let cwd: string;
  let t: TestApp;
  const cli = (target: TestApp, args: string[]) =>
    runCli(['webmention', ...args], { cwd, env: { INDIEWEB_DATABASE_URL: target.database.url } });

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-wm-transfer-'));
    t = await appWithUsers();
  });
  afterAll(async () => {
    await t.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('imports a mentions.jf2 export without fetching: received dates, ids as provenance, owners from targets, sanitized content', async () => {
    const result = await cli(t, ['import', JF2]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('imported 4 of 5 mentions (1 private left out)\n');
    expect(result.code).toBe(0);

    const spring = await api(t, `mentions.jf2?target=${encodeURIComponent('https://alice.example/2024/03/spring/')}&sort-dir=up`);
    expect(spring.status).toBe(200);
    const [reply, like] = spring.json.children;
    expect(reply).toMatchObject({
      type: 'entry',
      author: { type: 'card', name: 'Rowan Example', photo: 'https://rowan.example/avatar.jpg', url: 'https://rowan.example/' },
      url: 'https://rowan.example/notes/2024/31',
      published: '2024-03-02T08:15:00-05:00',
      'wm-received': '2024-03-02T13:20:11Z',
      'wm-source': 'https://rowan.example/notes/2024/31',
      'wm-target': 'https://alice.example/2024/03/spring/',
      'wm-property': 'in-reply-to',
      'in-reply-to': 'https://alice.example/2024/03/spring/',
      content: { text: 'Lovely photos!' },
    });
    // HTML from a file is sanitized like HTML from a fetched source
    expect((reply!.content as { html: string }).html).toContain('<strong>photos</strong>');
    expect((reply!.content as { html: string }).html).not.toContain('script');
    expect(like).toMatchObject({
      'wm-property': 'like-of',
      'wm-received': '2024-03-03T09:00:00Z',
      published: null,
      author: { name: 'Sam', photo: '' },
    });
    expect(typeof reply!['wm-id']).toBe('number');

    const meetup = await api(t, `mentions.jf2?target=${encodeURIComponent('https://alice.example/events/meetup/')}`);
    // the private mention is left out; the RSVP keeps its value, a javascript: author URL is dropped
    expect(meetup.json.children).toHaveLength(1);
    expect(meetup.json.children[0]).toMatchObject({
      'wm-property': 'rsvp',
      rsvp: 'yes',
      content: { text: 'See you there' },
      author: { name: 'Tess', url: '' },
    });
    const count = await api(t, `count.json?target=${encodeURIComponent('https://alice.example/events/meetup/')}`);
    expect(count.json).toEqual({ count: 1, type: { 'rsvp-yes': 1 } });

    const stored = await rows(t);
    const alice = await t.app.indieweb.users!.findByName('alice');
    const bob = await t.app.indieweb.users!.findByName('bob');
    expect(stored.map((row) => [row.origin, row.owner_id, row.status, row.created_at])).toEqual([
      ['webmention.io:1704', alice!.id, 'verified', '2024-03-02T13:20:11.000Z'],
      ['webmention.io:1710', alice!.id, 'verified', '2024-03-03T09:00:00.000Z'],
      ['webmention.io:1822', alice!.id, 'verified', '2024-04-01T08:05:00.000Z'],
      // a target under bob's profile URL is bob's, as a received mention would be
      ['webmention.io:1901', bob!.id, 'verified', '2024-05-10T12:30:00.000Z'],
    ]);
    // nothing waits to be fetched
    expect(await t.app.indieweb.jobs.drain()).toBe(0);
  });

  it('importing the same file again adds nothing', async () => {
    const before = await rows(t);
    const result = await cli(t, ['import', JF2]);
    expect(result.stdout).toBe('imported 0 of 5 mentions (4 already here, 1 private left out)\n');
    expect(result.code).toBe(0);
    expect(await rows(t)).toEqual(before);
  });

  it('imports the older mentions.json (links) shape; an unverified link is left out', async () => {
    const result = await cli(t, ['import', LINKS]);
    expect(result.stdout).toBe('imported 3 of 4 mentions (1 unverified left out)\n');
    expect(result.code).toBe(0);
    const garden = await api(t, `mentions.jf2?target=${encodeURIComponent('https://alice.example/2019/05/garden/')}&sort-dir=up`);
    expect(garden.json.children.map((entry) => [entry['wm-property'], entry['wm-received']])).toEqual([
      ['repost-of', '2019-06-01T10:11:12Z'],
      ['in-reply-to', '2019-06-02T10:11:12Z'],
    ]);
    const reply = garden.json.children[1]!;
    expect((reply.content as { html: string }).html).toBe('<p>Which <em>roses</em> are these?</p>');
    expect((reply.content as { text: string }).text).toBe('Which roses are these?');
    const picnic = await api(t, `count.json?target=${encodeURIComponent('https://alice.example/events/picnic/')}`);
    expect(picnic.json).toEqual({ count: 1, type: { 'rsvp-maybe': 1 } });
  });

  it('a file that is not what it claims is one error line, exit 1, and nothing imported', async () => {
    const valid = JSON.parse(readFileSync(JF2, 'utf8')) as { children: Record<string, unknown>[] };
    const brokenEntry = {
      ...valid,
      children: [
        valid.children[0],
        { ...valid.children[1], 'wm-id': 99_999, 'wm-source': 'https://new.example/x' },
        { ...valid.children[2], 'wm-target': undefined },
      ],
    };
    const files: Record<string, [string, string]> = {
      'not-json.json': ['{"type": "feed", "children": [', 'not JSON'],
      'other-shape.json': ['{"type": "feed", "items": []}', 'not a webmention.io export: expected'],
      'array.json': ['[1, 2]', 'not a webmention.io export'],
      'broken-entry.json': [JSON.stringify(brokenEntry), 'children[2]: wm-target is missing'],
      'bad-date.json': [
        JSON.stringify({ links: [{ source: 'https://a.example/1', target: 'https://alice.example/', verified_date: 'yesterday' }] }),
        'links[0]: verified_date is not a date',
      ],
      'bad-property.json': [
        JSON.stringify({
          type: 'feed',
          children: [{ ...valid.children[0], 'wm-source': 'https://new.example/y', 'wm-property': 'follow-of' }],
        }),
        'children[0]: wm-property is not one of',
      ],
    };
    const before = await rows(t);
    const results = await Promise.all(
      Object.entries(files).map(async ([name, [text]]) => {
        writeFileSync(path.join(cwd, name), text);
        return [name, await cli(t, ['import', name])] as const;
      }),
    );
    for (const [name, result] of results) {
      expect(result.code, name).toBe(1);
      expect(result.stdout, name).toBe('');
      expect(result.stderr.trimEnd().split('\n'), name).toHaveLength(1);
      expect(result.stderr, name).toContain(`indiestack: ${name} is not a webmention.io export, nothing imported: ${files[name]![1]}`);
    }
    const missing = await cli(t, ['import', 'no-such-file.json']);
    expect([missing.code, missing.stderr]).toEqual([1, 'indiestack: cannot read no-such-file.json (ENOENT)\n']);
    // the good entries before the broken one were not stored either
    expect(await rows(t)).toEqual(before);
  });

  it('--user gives every imported mention to that account; an unknown user is an error', async () => {
    const fresh = await appWithUsers();
    try {
      const [unknown, given] = [await cli(fresh, ['import', JF2, '--user', 'nobody']), await cli(fresh, ['import', JF2, '--user', 'bob'])];
      expect([unknown.code, unknown.stderr]).toEqual([1, 'indiestack: no user named "nobody"\n']);
      expect(given.stdout).toBe('imported 4 of 5 mentions (1 private left out)\n');
      const bob = await fresh.app.indieweb.users!.findByName('bob');
      expect(new Set((await rows(fresh)).map((row) => row.owner_id))).toEqual(new Set([bob!.id]));
    } finally {
      await fresh.close();
    }
  });

  it('export writes JF2 on stdout; importing it into a fresh data directory gives the same mentions back', async () => {
    const [all, alices] = await Promise.all([cli(t, ['export']), cli(t, ['export', '--user', 'alice'])]);
    expect(all.code).toBe(0);
    const feed = JSON.parse(all.stdout) as { type: string; name: string; children: Jf2Entry[] };
    expect(feed.type).toBe('feed');
    expect(feed.children).toHaveLength(7);
    // oldest first, the shape the API answers
    expect(feed.children.map((entry) => entry['wm-received'])).toEqual(
      [...feed.children.map((entry) => entry['wm-received'] as string)].sort(),
    );
    const fromApi = await api(t, `mentions.jf2?target=${encodeURIComponent('https://alice.example/2024/03/spring/')}&sort-dir=up`);
    expect(feed.children.filter((entry) => entry['wm-target'] === 'https://alice.example/2024/03/spring/')).toEqual(fromApi.json.children);
    const alicesFeed = JSON.parse(alices.stdout) as { children: Jf2Entry[] };
    expect(alicesFeed.children.map((entry) => entry['wm-target'])).not.toContain('https://bob.example/essays/tools');
    expect(alicesFeed.children).toHaveLength(6);

    const exportFile = path.join(cwd, 'export.jf2.json');
    writeFileSync(exportFile, all.stdout);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-wm-fresh-'));
    const inDir = (args: string[]) => runCli(['--data-dir', dataDir, ...args], { cwd });
    try {
      expect((await inDir(['migrate'])).code).toBe(0);
      const imported = await inDir(['webmention', 'import', exportFile, '--origin', 'old-server']);
      expect(imported.stdout).toBe('imported 7 of 7 mentions\n');
      const again = await inDir(['webmention', 'export']);
      const roundTrip = JSON.parse(again.stdout) as { children: Jf2Entry[] };
      const withoutIds = (entries: Jf2Entry[]) => entries.map(({ 'wm-id': _id, ...rest }) => rest);
      expect(withoutIds(roundTrip.children)).toEqual(withoutIds(feed.children));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
