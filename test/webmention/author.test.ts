/**
 * Fixture-driven processing: each `test/fixtures/webmention/<case>.html` is
 * served by a loopback source site and sent as a webmention; the record must
 * match `<case>.expected.json` (link verification, type, author, content).
 *
 * Expected file fields: `description`; `status`; optional `target` (default
 * `http://indiestack.test/post`), `servedAt` (default `/fixtures/<case>`),
 * `via` (a path that redirects to `servedAt`; it is the submitted source),
 * `type`, `author` (null = no author), `content` (text), `contentHtml` (null,
 * or `{contains, excludes}`), `published`, `error` (the failure reason, a regular expression), `knownBug` (the case is run with
 * `it.fails` and says why). `{{ORIGIN}}` and `{{TARGET}}` in
 * either file are replaced by the source server origin and the target.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { accepted, drain, PRIVATE_OK, recordOf, SITE, startSourceServer, statusOf, type SourceServer } from '../helpers/webmention.js';

const FIXTURES = new URL('../fixtures/webmention/', import.meta.url);

interface Expected {
  description: string;
  /** Set while the case documents a known bug: the test is expected to fail (it.fails). */
  knownBug?: string;
  status: 'verified' | 'failed';
  target?: string;
  servedAt?: string;
  via?: string;
  type?: string;
  author?: { name: string | null; url: string | null; photo: string | null } | null;
  content?: string | null;
  contentHtml?: null | { contains: string[]; excludes: string[] };
  published?: string | null;
  /** For a failed case: the reason recorded, as a regular expression (default `does not link`). */
  error?: string;
}

const cases = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.html'))
  .map((name) => name.slice(0, -'.html'.length))
  .sort();

function load(name: string, origin: string): { html: string; expected: Expected } {
  const fill = (text: string, target: string) => text.replaceAll('{{ORIGIN}}', origin).replaceAll('{{TARGET}}', target);
  const raw = JSON.parse(readFileSync(new URL(`${name}.expected.json`, FIXTURES), 'utf8')) as Expected;
  const target = raw.target ?? `${SITE}/post`;
  const expected = JSON.parse(fill(JSON.stringify(raw), target)) as Expected;
  return { html: fill(readFileSync(new URL(`${name}.html`, FIXTURES), 'utf8'), target), expected: { ...expected, target } };
}

describe('webmention fixtures: verification, type, author and content', () => {
  let t: TestApp;
  let source: SourceServer;

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
  });
  afterAll(async () => {
    await t.close();
    await source.close();
  });

  it('has a fixture of every kind the processing rules name', () => {
    for (const prefix of ['canonical-', 'no-link-', 'type-', 'author-', 'content-'])
      expect(cases.filter((name) => name.startsWith(prefix)).length).toBeGreaterThan(1);
    for (const name of cases) expect(() => readFileSync(new URL(`${name}.expected.json`, FIXTURES))).not.toThrow();
  });

  const run = async (name: string) => {
    const { html, expected } = load(name, source.origin);
    const servedAt = expected.servedAt ?? `/fixtures/${name}`;
    source.set(servedAt, html);
    if (expected.via !== undefined) source.redirect(expected.via, servedAt, 301);
    const submitted = source.url(expected.via ?? servedAt);
    const requestsBefore = source.requests.length;

    const id = await accepted(t, submitted, expected.target!);
    await drain(t);
    // spec: remote author-page fetching is unsupported: only the source itself (and its redirect) is requested
    expect(source.requests.slice(requestsBefore).map((request) => request.path)).toEqual(
      expected.via === undefined ? [servedAt] : [expected.via, servedAt],
    );
    const status = await statusOf(t, id);
    const record = await recordOf(t, id);

    expect(status.status, expected.description).toBe(expected.status);
    expect(status.source).toBe(submitted);
    expect(status.target).toBe(expected.target);
    if (expected.status === 'verified') expect(status.verified_at).toBe(t.clock.now().toISOString());
    else {
      expect(status.verified_at).toBeNull();
      // failed because the page was read and found wanting, not because it could not be fetched
      expect(source.hits(servedAt)).toBe(1);
      expect(record.error).toMatch(new RegExp(expected.error ?? 'does not link'));
    }
    if (expected.type !== undefined) expect(status.type).toBe(expected.type);
    if (expected.author !== undefined) expect(status.author).toEqual(expected.author ?? { name: null, url: null, photo: null });
    if (expected.content !== undefined) expect(status.content).toBe(expected.content);
    if (expected.published !== undefined) expect(record.published).toBe(expected.published);
    if (expected.contentHtml === null) expect(record.contentHtml).toBeNull();
    else if (expected.contentHtml !== undefined) {
      for (const part of expected.contentHtml.contains) expect(record.contentHtml).toContain(part);
      for (const part of expected.contentHtml.excludes) expect(record.contentHtml).not.toContain(part);
    }
  };

  for (const name of cases) {
    const knownBug = (JSON.parse(readFileSync(new URL(`${name}.expected.json`, FIXTURES), 'utf8')) as Expected).knownBug;
    // known bug (see the fixture's knownBug): the spec assertion stays, the case is expected to fail until fixed
    if (knownBug !== undefined) it.fails(`${name} (known bug: ${knownBug})`, () => run(name));
    else it(name, () => run(name));
  }
});
