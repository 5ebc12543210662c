/**
 * Entry-page test helpers: a standalone app on the database handler with
 * alice (and, on request, bob), entries created through Micropub, pages
 * fetched and parsed back with microformats-parser, verified webmentions
 * seeded through the repository.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mf2 } from 'microformats-parser';
import type { LightMyRequestResponse } from 'fastify';
import { profileUrlKey } from '../../src/core/url.js';
import type { DialectName } from '../../src/storage/connect.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { createWebmentionsRepository } from '../../src/storage/repositories/webmentions.js';
import { capMention } from '../../src/webmention/cap-mention.js';
import { canonicalUrl } from '../../src/webmention/canonical-url.js';
import { buildTestApp, type TestApp } from './app.js';
import { CLIENT_ID } from './indieauth.js';
import { ALL_SCOPES, BASE_URL, createViaJson, HOST } from './micropub.js';

export interface EntriesTestApp extends TestApp {
  /** A fresh token of this user's with every scope. */
  token(user?: 'alice' | 'bob'): Promise<string>;
  /** Creates an entry through Micropub (JSON); returns its URL. */
  create(properties: Record<string, unknown[]>, options?: { type?: string[]; user?: 'alice' | 'bob' }): Promise<string>;
  get(path: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** A standalone server with `INDIEWEB_MICROPUB_HANDLER=database`, alice and bob. */
export async function entriesApp(
  options: { dialect?: DialectName; env?: Record<string, string>; worker?: boolean } = {},
): Promise<EntriesTestApp> {
  const t = await buildTestApp({
    ...(options.dialect === undefined ? {} : { dialect: options.dialect }),
    ...(options.worker === undefined ? {} : { worker: options.worker }),
    env: { INDIEWEB_MICROPUB_HANDLER: 'database', ...options.env },
  });
  const users = createUsersRepository(t.database.db);
  for (const name of ['alice', 'bob']) {
    const me = `https://${name}.example/`;
    await users.insert({
      id: randomUUID(),
      name,
      passwordHash: 'not-used',
      profileUrls: [{ url: me, key: profileUrlKey(me)! }],
      now: t.clock.now().toISOString(),
    });
  }
  const token = async (name: 'alice' | 'bob' = 'alice') => {
    const user = (await t.app.indieweb.users!.findByName(name))!;
    return (
      await t.app.indieweb.tokens.issue({ userId: user.id, clientId: CLIENT_ID, me: user.me[0]!, scope: ALL_SCOPES, expiresIn: 3600 })
    ).token;
  };
  return {
    ...t,
    token,
    create: async (properties, createOptions = {}) => createViaJson(t.app, await token(createOptions.user), properties, createOptions.type),
    get: (path, headers = {}) => t.app.inject({ method: 'GET', url: path, headers: { host: HOST, ...headers } }),
  };
}

/** The path of an absolute URL of ours. */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}

export interface Mf2Item {
  type: string[];
  properties: Record<string, unknown[]>;
  value?: unknown;
  children?: Mf2Item[];
}

/** The page's top-level microformats items and rels, as any mf2 consumer reads them. */
export function parsePage(html: string): { items: Mf2Item[]; rels: Record<string, string[]> } {
  const parsed = mf2(html, { baseUrl: `${BASE_URL}/` });
  return { items: parsed.items as unknown as Mf2Item[], rels: parsed.rels };
}

/** Nested items without the `value` the parser adds, and `{ html, value }` reduced to its html, for comparing with stored properties. */
export function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (typeof record.html === 'string') return { html: record.html.trim() };
  if (Array.isArray(record.type)) return { type: record.type, properties: comparable(record.properties) };
  return Object.fromEntries(Object.entries(record).map(([key, inner]) => [key, comparable(inner)]));
}

/** Seeds a mention of `target` straight into the repository, verified (or with another status). */
export async function seedMention(
  t: Pick<TestApp, 'database' | 'clock'>,
  target: string,
  mention: {
    source: string;
    type: string;
    author?: { name: string | null; url: string | null; photo: string | null };
    contentHtml?: string | null;
    contentText?: string | null;
    published?: string | null;
    status?: 'verified' | 'spam' | 'pending';
  },
): Promise<void> {
  const repository = createWebmentionsRepository(t.database.db);
  const now = t.clock.now().toISOString();
  const { record } = await repository.upsert({
    id: randomUUID().replace(/-/g, ''),
    source: mention.source,
    target,
    targetKey: canonicalUrl(target)!,
    targetHost: new URL(target).hostname,
    ownerId: null,
    now,
  });
  if (mention.status === 'pending') return;
  await repository.markVerified(
    record.id,
    // through the one door every writer uses (cap-mention.ts)
    capMention({
      type: mention.type,
      author: mention.author ?? null,
      contentHtml: mention.contentHtml ?? null,
      contentText: mention.contentText ?? null,
      published: mention.published ?? null,
    }),
    now,
  );
  if (mention.status === 'spam') await repository.markStatus(record.id, 'spam', null, now);
}
