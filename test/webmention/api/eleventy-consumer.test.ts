/**
 * A real webmention.io consumer against indiestack: the maintained Eleventy
 * plug-in @chrisburnell/eleventy-cache-webmentions, configured as its README
 * says for webmention.io with only the URL changed to ours. It fetches over
 * HTTP on loopback and caches through @11ty/eleventy-fetch into a temp dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../helpers/admin.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { accepted, drain, linkingPage, PRIVATE_OK, startSourceServer, type SourceServer } from '../../helpers/webmention.js';

const require = createRequire(import.meta.url);
const plugin = require('@chrisburnell/eleventy-cache-webmentions') as {
  defaults: Record<string, unknown>;
  getWebmentions(options: Record<string, unknown>, url: string, types?: string | string[]): Promise<Record<string, any>[]>;
  getContent(webmention: Record<string, any>): string;
  getType(webmention: Record<string, any>): string;
  getSource(webmention: Record<string, any>): string;
};

const DOMAIN = 'https://alice.example';
const POST = `${DOMAIN}/2026/hello/`;

describe('@chrisburnell/eleventy-cache-webmentions reads indiestack as it reads webmention.io', () => {
  let t: TestApp;
  let source: SourceServer;
  let origin: string;
  let token: string;
  let cacheDirectory: string;
  let run = 0;
  /** The README's webmention.io settings, with webmention.io's host swapped for ours. */
  const options = (extra: Record<string, unknown> = {}) => ({
    ...plugin.defaults,
    domain: DOMAIN,
    feed: `${origin}/indieweb/webmention/api/mentions.jf2?domain=alice.example&token=${token}`,
    key: 'children',
    cacheDirectory,
    uniqueKey: `webmentions-${++run}`,
    ...extra,
  });

  beforeAll(async () => {
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
    const { user } = await addUser(t, 'alice');
    token = await t.app.indieweb.webmentionTokens.rotate(user.id);
    source.set(
      '/reply',
      `<article class="h-entry"><a class="p-author h-card" href="/ann">Ann</a><a class="u-in-reply-to" href="${POST}">re</a><div class="e-content">Nice <b>post</b></div></article>`,
    );
    source.set('/like', `<article class="h-entry"><a class="u-like-of" href="${POST}">like</a></article>`);
    source.set('/mention', linkingPage(POST));
    for (const name of ['reply', 'like', 'mention']) {
      t.clock.advance(5);
      await accepted(t, source.url(`/${name}`), POST);
    }
    await drain(t);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    cacheDirectory = mkdtempSync(path.join(os.tmpdir(), 'indiestack-eleventy-cache-'));
  });
  afterAll(async () => {
    await t?.close();
    await source?.close();
    if (cacheDirectory !== undefined) rmSync(cacheDirectory, { recursive: true, force: true });
  });

  it('gets the mentions of a page, with their types and content', async () => {
    const mentions = await plugin.getWebmentions(options(), POST);
    expect(mentions.map(plugin.getSource).sort()).toEqual([source.url('/like'), source.url('/mention'), source.url('/reply')]);
    expect(mentions.map(plugin.getType).sort()).toEqual(['in-reply-to', 'like-of', 'mention-of']);
    const reply = mentions.find((mention) => plugin.getType(mention) === 'in-reply-to')!;
    expect(plugin.getContent(reply)).toContain('Nice <b>post</b>');
    expect(await plugin.getWebmentions(options(), POST, 'like-of')).toHaveLength(1);
  });

  it('pages through the feed with paginate: true (per-page 1000, page from 0)', async () => {
    const mentions = await plugin.getWebmentions(options({ paginate: true }), POST);
    expect(mentions).toHaveLength(3);
  });

  it('a later build (cache expired) picks up a mention received since', async () => {
    const first = options({ duration: '0s' });
    expect(await plugin.getWebmentions(first, POST)).toHaveLength(3);
    source.set('/late', linkingPage(POST));
    t.clock.advance(5);
    await accepted(t, source.url('/late'), POST);
    await drain(t);
    // same cache file, a new options object so the plug-in's in-memory cache is not used
    const again = await plugin.getWebmentions(
      { ...first, refresh: false, duration: '0s', key: 'children', feed: `${first.feed}&_=1` },
      POST,
    );
    expect(again.map(plugin.getSource)).toContain(source.url('/late'));
    expect(again).toHaveLength(4);
  });
});
