/**
 * Backfeed from Mastodon end to end in one process (issue 34): an entry syndicated to the API double, then other
 * accounts reply to, favourite and reblog the copy; a poll (the `syndication.poll` job) brings them home as
 * received webmentions of the entry, through the webmention service; re-polling stores nothing new; undone
 * favourites and deleted replies are withdrawn; the user's own replies never come back; 429 backs off; two app
 * instances on one database never poll a target at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/app/server.js';
import { POLL_JOB } from '../../src/syndication/backfeed.js';
import { buildTestApp } from '../helpers/app.js';
import { startMastodonDouble, type DoubleAccount, type MastodonDouble } from '../helpers/mastodon-double.js';

describe('backfeed from Mastodon (API double)', () => {
  let double: MastodonDouble;
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  let aliceId: string;
  let uid: string;
  let entryUrl: string;
  let copyId: string;
  let copyUrl: string;
  let bob: DoubleAccount;
  let carol: DoubleAccount;
  const indieweb = () => t.app.indieweb;
  const poll = async () => {
    await indieweb().syndication.backfeed!.pollSoon(uid);
    await indieweb().jobs.drain();
  };
  const mentions = async () => (await indieweb().webmention.list({ target: entryUrl })).items;
  const visible = async () => (await indieweb().webmention.listPublic({ target: entryUrl })).items;

  beforeAll(async () => {
    double = await startMastodonDouble({ mediaPolls: 0 });
    t = await buildTestApp({ env: { INDIEWEB_MICROPUB_HANDLER: 'database', INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' } });
    const alice = await indieweb().users!.addUser({ name: 'alice', me: ['http://indiestack.test/'], password: 'alice password 1' });
    aliceId = alice.id;
    const { token } = await indieweb().tokens.issue({
      userId: alice.id,
      clientId: 'https://app.example/',
      me: 'http://indiestack.test/',
      scope: 'create update delete',
      expiresIn: 3600,
    });
    uid = (await indieweb().syndication.addTarget({ userId: alice.id, service: 'mastodon', url: double.origin, secret: double.token })).uid;
    const created = await t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ type: ['h-entry'], properties: { content: ['Hello backfeed'], 'mp-syndicate-to': [uid] } }),
    });
    expect(created.statusCode).toBe(201);
    entryUrl = created.headers.location as string;
    await indieweb().jobs.drain();
    const copy = double.ownStatuses().find((status) => status.text.startsWith('Hello backfeed'))!;
    copyId = copy.id;
    copyUrl = copy.url;
    bob = double.addAccount('bob', { host: 'elsewhere.example', displayName: 'Bob B' });
    carol = double.addAccount('carol');
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });

  /** The target's poll job, as the queue holds it. */
  const pollJob = () =>
    t.database.db.selectFrom('indieweb_job').selectAll().where('kind', '=', POLL_JOB).where('ref', '=', uid).executeTakeFirst();

  it('the first poll runs as the job of a new target and records what it found', async () => {
    const state = await indieweb().syndication.backfeed!.pollState(uid);
    expect(state).toMatchObject({ found: 'nothing new', error: null });
    const job = await pollJob();
    // queued again for INDIEWEB_SYNDICATION_POLL_SECONDS later (300 by default)
    expect(Date.parse(job!.run_at) - t.clock.now().getTime()).toBe(300_000);
  });

  it('a reply, a favourite and a reblog come home as verified webmentions of the entry, with the right sources', async () => {
    const reply = double.reply(bob, copyId, 'Nice post! <script>alert(1)</script>');
    double.favourite(carol, copyId);
    double.reblog(bob, copyId);
    await poll();
    const stored = await mentions();
    const bySource = new Map(stored.map((mention) => [mention.source, mention]));
    expect([...bySource.keys()].sort()).toEqual(
      [reply.url, `${copyUrl}#favorited-by-${carol.id}`, `${copyUrl}#reblogged-by-${bob.id}`].sort(),
    );
    const replyMention = bySource.get(reply.url)!;
    expect(replyMention).toMatchObject({
      status: 'verified',
      type: 'reply',
      target: entryUrl,
      ownerId: aliceId,
      origin: `mastodon:${uid}`,
      author: { name: 'Bob B', url: 'https://elsewhere.example/@bob', photo: bob.avatar },
      published: reply.created_at,
    });
    expect(replyMention.contentText).toContain('Nice post!');
    expect(replyMention.contentHtml).not.toContain('<script');
    expect(bySource.get(`${copyUrl}#favorited-by-${carol.id}`)!.type).toBe('like');
    expect(bySource.get(`${copyUrl}#reblogged-by-${bob.id}`)!.type).toBe('repost');
    expect(await visible()).toHaveLength(3);
    expect((await indieweb().syndication.backfeed!.pollState(uid))!.found).toBe('1 reply, 1 like, 1 repost');
    // the webmention.io-compatible view names the properties
    const counts = await indieweb().webmention.countPublic(entryUrl);
    expect(counts).toMatchObject({ reply: 1, like: 1, repost: 1 });
  });

  it('polling again stores nothing new, even from the start (cursor lost)', async () => {
    const before = (await mentions()).map((mention) => [mention.id, mention.updatedAt]);
    await poll();
    expect((await indieweb().syndication.backfeed!.pollState(uid))!.found).toBe('nothing new');
    await t.database.db.updateTable('indieweb_syndication_poll').set({ cursor: null }).execute();
    await poll();
    expect((await mentions()).map((mention) => [mention.id, mention.updatedAt])).toEqual(before);
  });

  it('the user’s own replies (their account) are never fed back', async () => {
    const own = double.reply('1', copyId, 'my own follow-up');
    // Mastodon does not notify of one's own replies; even if it did, they are left out
    double.notify('mention', '1', own.id);
    await poll();
    expect((await mentions()).map((mention) => mention.source)).not.toContain(own.url);
  });

  it('a reply to something else (not a copy) is ignored', async () => {
    const other = double.reply(bob, double.addStatus('https://elsewhere.example/@x/1').id, 'unrelated');
    double.notify('mention', bob.id, other.id);
    await poll();
    expect((await mentions()).map((mention) => mention.source)).not.toContain(other.url);
  });

  it('an undone favourite and a deleted reply are withdrawn at the next poll', async () => {
    const reply = (await mentions()).find((mention) => mention.type === 'reply')!;
    double.unfavourite(carol, copyId);
    double.deleteStatus(reply.source.split('/').pop()!);
    await poll();
    const stored = new Map((await mentions()).map((mention) => [mention.source, mention]));
    expect(stored.get(`${copyUrl}#favorited-by-${carol.id}`)).toMatchObject({ status: 'failed', error: 'the like was undone on mastodon' });
    expect(stored.get(reply.source)).toMatchObject({ status: 'failed', error: 'the reply was deleted on mastodon' });
    expect((await visible()).map((mention) => mention.type)).toEqual(['repost']);
    expect((await indieweb().syndication.backfeed!.pollState(uid))!.found).toBe('2 removed');
    // a favourite given again comes back
    double.favourite(carol, copyId);
    await poll();
    expect((await visible()).map((mention) => mention.type).sort()).toEqual(['like', 'repost']);
  });

  it('a blocked author is stored as spam (moderation matches the author’s instance)', async () => {
    await indieweb().webmentionModeration.addRule(aliceId, 'block', 'spam.example');
    const spammer = double.addAccount('spammer', { host: 'spam.example' });
    const reply = double.reply(spammer, copyId, 'buy now');
    await poll();
    expect((await mentions()).find((mention) => mention.source === reply.url)).toMatchObject({ status: 'spam' });
    expect((await visible()).map((mention) => mention.source)).not.toContain(reply.url);
  });

  it('a 429 is recorded and backs off until the time the instance names', async () => {
    double.fail({ status: 429, path: '/api/v1/notifications', headers: { 'retry-after': '900' } });
    await poll();
    const state = await indieweb().syndication.backfeed!.pollState(uid);
    expect(state!.error).toMatch(/429/);
    const job = await pollJob();
    expect(Date.parse(job!.run_at) - t.clock.now().getTime()).toBe(900_000);
  });

  it('two app instances on one database never poll the target at once', async () => {
    const second = await createServer({ config: t.config, database: t.database, clock: t.clock, logger: false, worker: false });
    await second.app.ready();
    try {
      double.delayNotifications(300);
      await indieweb().syndication.backfeed!.pollSoon(uid);
      const before = double.requests.filter((request) => request.path === '/api/v1/notifications').length;
      const ran = await Promise.all([indieweb().jobs.runOnce(), second.app.indieweb.jobs.runOnce()]);
      expect(ran.filter(Boolean)).toHaveLength(1);
      expect(double.requests.filter((request) => request.path === '/api/v1/notifications').length - before).toBe(1);
      expect(double.notificationsInFlightMax()).toBe(1);
    } finally {
      double.delayNotifications(0);
      await second.app.close();
    }
  });
});
