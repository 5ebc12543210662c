/**
 * Issue 28 class 4 (mentions) and F3: one rule decides what a visitor may see
 * of received mentions (verified and approved; never pending, failed, spam,
 * held or rejected), the JS predicate and the SQL condition agree over every
 * status × approval, and every reader uses it: the entry page, GET
 * /indieweb/webmention/?target=, the webmention.io-compatible API (mentions
 * and count) and webhooks. Real HTTP on loopback, a SQLite file and
 * PostgreSQL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicMention } from '../../src/storage/repositories/public-mention.js';
import {
  createWebmentionsRepository,
  WEBMENTION_APPROVALS,
  WEBMENTION_STATUSES,
  type WebmentionsRepository,
} from '../../src/storage/repositories/webmentions.js';
import { capMention } from '../../src/webmention/cap-mention.js';
import { canonicalUrl } from '../../src/webmention/canonical-url.js';
import { DIALECTS } from '../helpers/databases.js';
import { entriesApp, type EntriesTestApp } from '../helpers/entries.js';
import { HOST } from '../helpers/micropub.js';

const STATES = ['public', 'held', 'rejected', 'spam', 'pending', 'failed'] as const;
type State = (typeof STATES)[number];

/** A GET over real HTTP with our site's Host. */
function fetchPage(origin: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${origin}${path}`, { headers: { host: HOST, accept: 'text/html' } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

async function seed(
  repository: WebmentionsRepository,
  t: EntriesTestApp,
  target: string,
  ownerId: string | null,
  state: State,
): Promise<string> {
  const now = t.clock.now().toISOString();
  const { record } = await repository.upsert({
    id: randomUUID().replace(/-/g, ''),
    source: `https://${state}.example/post`,
    target,
    targetKey: canonicalUrl(target)!,
    targetHost: new URL(target).hostname,
    ownerId,
    now,
  });
  if (state === 'pending') return record.id;
  await repository.markVerified(
    record.id,
    capMention({
      type: 'reply',
      author: { name: `Author-${state}`, url: `https://${state}.example/`, photo: null },
      contentText: `words-of-${state}`,
      contentHtml: `<p>words-of-${state}</p>`,
      published: null,
    }),
    now,
  );
  if (state === 'held' || state === 'rejected') await repository.setApproval(record.id, state, now);
  if (state === 'spam' || state === 'failed') await repository.markStatus(record.id, state, null, now);
  return record.id;
}

describe.each(DIALECTS)('public mentions on %s', (dialect) => {
  let t: EntriesTestApp;
  let origin: string;
  let repository: WebmentionsRepository;
  let entryUrl: string;
  let aliceId: string;

  beforeAll(async () => {
    t = await entriesApp({ dialect });
    repository = createWebmentionsRepository(t.database.db);
    aliceId = (await t.app.indieweb.users!.findByName('alice'))!.id;
    entryUrl = await t.create({ name: ['Talk to me'], content: ['Replies welcome.'] });
    for (const state of STATES) await seed(repository, t, entryUrl, aliceId, state);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the JS predicate and the SQL condition agree over every status × approval (and no approval recorded)', async () => {
    const target = `${entryUrl}matrix`;
    const expected: string[] = [];
    const now = t.clock.now().toISOString();
    for (const status of WEBMENTION_STATUSES) {
      for (const approval of [...WEBMENTION_APPROVALS, null]) {
        const id = randomUUID().replace(/-/g, '');
        await repository.upsert({
          id,
          source: `https://m.example/${status}/${approval}`,
          target,
          targetKey: canonicalUrl(target)!,
          targetHost: HOST,
          ownerId: null,
          now,
        });
        await t.database.db.updateTable('indieweb_webmention').set({ status, approval }).where('id', '=', id).execute();
        if (isPublicMention({ status, approval })) expected.push(id);
      }
    }
    const listed = (await repository.list({ targetKey: canonicalUrl(target)!, visible: true })).items.map((record) => record.id);
    expect(listed.sort()).toEqual(expected.sort());
    // verified with approved or no approval: exactly two of the 16
    expect(expected).toHaveLength(2);
  });

  it('the entry page shows only the public reply', async () => {
    const page = await fetchPage(origin, new URL(entryUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.body).toContain('words-of-public');
    for (const state of STATES.filter((s) => s !== 'public')) expect(page.body, state).not.toContain(`${state}.example`);
    expect(page.body).toContain('1 reply');
  });

  it('GET /indieweb/webmention/?target= answers only the public mention', async () => {
    const response = await fetch(`${origin}/indieweb/webmention/?target=${encodeURIComponent(entryUrl)}`);
    expect(response.status).toBe(200);
    const feed = (await response.json()) as { children: { url: string }[]; paging: { total: number } };
    expect(feed.children.map((child) => child.url)).toEqual(['https://public.example/post']);
    expect(feed.paging.total).toBe(1);
  });

  it('the webmention.io-compatible API (mentions and count) answers only the public mention', async () => {
    const mentions = (await (
      await fetch(`${origin}/indieweb/webmention/api/mentions.jf2?target=${encodeURIComponent(entryUrl)}`)
    ).json()) as { children: { url: string }[] };
    expect(mentions.children.map((child) => child.url)).toEqual(['https://public.example/post']);
    const count = (await (await fetch(`${origin}/indieweb/webmention/api/count?target=${encodeURIComponent(entryUrl)}`)).json()) as {
      count: number;
    };
    expect(count.count).toBe(1);
  });

  it('webhooks fire only for the public mention', async () => {
    const webhooks = t.app.indieweb.webhooks!;
    await webhooks.setUrl(aliceId, 'http://127.0.0.1:9/hook');
    const before = (await webhooks.list(aliceId)).length;
    const { items } = await repository.list({ targetKey: canonicalUrl(entryUrl)! });
    expect(items).toHaveLength(STATES.length);
    for (const record of items) {
      await webhooks.notify(record, 'verified');
      await webhooks.notify(record, 'approved');
    }
    const deliveries = (await webhooks.list(aliceId)).slice(0, (await webhooks.list(aliceId)).length - before);
    expect(deliveries).toHaveLength(2);
    expect(deliveries.every((delivery) => JSON.parse(delivery.body).source === 'https://public.example/post')).toBe(true);
  });
});
