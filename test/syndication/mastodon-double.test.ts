import { createRestAPIClient, MastoHttpError } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonDouble, type MastodonDouble } from '../helpers/mastodon-double.js';

// the double, read by the real `masto` client: its shapes and status codes are what a Mastodon client expects
describe('the Mastodon API double, read by masto', () => {
  let double: MastodonDouble;
  beforeAll(async () => {
    double = await startMastodonDouble({ mediaPolls: 1 });
  });
  afterAll(async () => {
    await double.close();
  });
  const client = () => createRestAPIClient({ url: double.origin, accessToken: double.token });

  it('verifies credentials and refuses a wrong token with 401', async () => {
    expect((await client().v1.accounts.verifyCredentials()).acct).toBe('alice');
    const wrong = createRestAPIClient({ url: double.origin, accessToken: 'nope' });
    const error = await wrong.v1.accounts.verifyCredentials().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MastoHttpError);
    expect((error as MastoHttpError).statusCode).toBe(401);
  });

  it('describes the instance (v2) with its status and media limits', async () => {
    const instance = await client().v2.instance.fetch();
    expect(instance.configuration.statuses.maxCharacters).toBe(500);
    expect(instance.configuration.statuses.charactersReservedPerUrl).toBe(23);
    expect(instance.configuration.mediaAttachments.imageSizeLimit).toBeGreaterThan(0);
  });

  it('creates a status once per Idempotency-Key, edits it, deletes it', async () => {
    const masto = client();
    const headers = { 'Idempotency-Key': 'k-1' };
    const first = await masto.v1.statuses.create({ status: 'Hello' }, { requestInit: { headers } });
    const again = await masto.v1.statuses.create({ status: 'Hello' }, { requestInit: { headers } });
    expect(again.id).toBe(first.id);
    expect(double.ownStatuses().filter((s) => s.text === 'Hello')).toHaveLength(1);
    const edited = await masto.v1.statuses.$select(first.id).update({ status: 'Hello, edited' });
    expect(edited.editedAt).not.toBeNull();
    expect(edited.content).toContain('edited');
    await masto.v1.statuses.$select(first.id).remove();
    const gone = await masto.v1.statuses
      .$select(first.id)
      .fetch()
      .catch((e: unknown) => e);
    expect((gone as MastoHttpError).statusCode).toBe(404);
  });

  it('refuses a status over the limit and an empty one with 422', async () => {
    const error = await client()
      .v1.statuses.create({ status: 'x'.repeat(501) })
      .catch((e: unknown) => e);
    expect((error as MastoHttpError).statusCode).toBe(422);
    const empty = await client()
      .v1.statuses.create({ status: '' })
      .catch((e: unknown) => e);
    expect((empty as MastoHttpError).statusCode).toBe(422);
  });

  it('uploads media with alt text (v2, processed in the background: masto polls until it has a URL) and attaches it', async () => {
    const masto = client();
    const attachment = await masto.v2.media.create({ file: new Blob([Buffer.from('jpeg')], { type: 'image/jpeg' }), description: 'A cat' });
    expect(attachment.url).not.toBeNull();
    expect(attachment.description).toBe('A cat');
    const status = await masto.v1.statuses.create({ status: 'with photo', mediaIds: [attachment.id] });
    expect(status.mediaAttachments.map((m) => m.description)).toEqual(['A cat']);
  });

  it('refuses a status naming media still being processed (422)', async () => {
    const processing = await fetch(`${double.origin}/api/v2/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${double.token}` },
      body: (() => {
        const form = new FormData();
        form.set('file', new Blob([Buffer.from('x')], { type: 'image/png' }), 'x.png');
        return form;
      })(),
    });
    expect(processing.status).toBe(202);
    const { id, url } = (await processing.json()) as { id: string; url: string | null };
    expect(url).toBeNull();
    const error = await client()
      .v1.statuses.create({ status: 'too soon', mediaIds: [id] })
      .catch((e: unknown) => e);
    expect((error as MastoHttpError).statusCode).toBe(422);
  });

  it('finds a remote post only with resolve=true; favourites, reblogs and replies to it', async () => {
    const masto = client();
    const remote = double.addStatus('https://elsewhere.example/@bob/1', { remote: true });
    expect((await masto.v2.search.list({ q: remote.url, type: 'statuses' })).statuses).toHaveLength(0);
    const found = (await masto.v2.search.list({ q: remote.url, type: 'statuses', resolve: true })).statuses[0]!;
    expect(found.id).toBe(remote.id);
    expect((await masto.v1.statuses.$select(found.id).favourite()).favourited).toBe(true);
    expect((await masto.v1.statuses.$select(found.id).reblog()).reblog?.id).toBe(found.id);
    const reply = await masto.v1.statuses.create({ status: 'a reply', inReplyToId: found.id });
    expect(reply.inReplyToId).toBe(found.id);
    expect((await masto.v1.statuses.$select(found.id).unfavourite()).favourited).toBe(false);
  });

  it('lists notifications and sends rate-limit headers; faults answer 429/503 with Retry-After', async () => {
    expect(await client().v1.notifications.list()).toEqual([]);
    const response = await fetch(`${double.origin}/api/v1/notifications`, { headers: { authorization: `Bearer ${double.token}` } });
    expect(Number.isNaN(Date.parse(response.headers.get('x-ratelimit-reset') ?? ''))).toBe(false);
    expect(response.headers.get('x-ratelimit-limit')).toBe('300');
    double.fail({ status: 503, headers: { 'retry-after': '1' } });
    const error = await client()
      .v1.accounts.verifyCredentials()
      .catch((e: unknown) => e);
    expect((error as MastoHttpError).statusCode).toBe(503);
  });

  it('answers 429 past its rate limit, with X-RateLimit-Reset', async () => {
    const limited = await startMastodonDouble({ rateLimit: 2 });
    try {
      const masto = createRestAPIClient({ url: limited.origin, accessToken: limited.token });
      await masto.v1.accounts.verifyCredentials();
      await masto.v1.accounts.verifyCredentials();
      const error = (await masto.v1.accounts.verifyCredentials().catch((e: unknown) => e)) as MastoHttpError;
      expect(error.statusCode).toBe(429);
      const response = await fetch(`${limited.origin}/api/v1/notifications`, { headers: { authorization: `Bearer ${limited.token}` } });
      expect([response.status, response.headers.get('x-ratelimit-remaining')]).toEqual([429, '0']);
    } finally {
      await limited.close();
    }
  });

  it('lists notifications by types[] and since_id, and who favourited and reblogged a status (backfeed)', async () => {
    const masto = client();
    const mine = await masto.v1.statuses.create({ status: 'Backfeed me' });
    const bob = double.addAccount('bob', { host: 'elsewhere.example' });
    const reply = double.reply(bob, mine.id, 'a reply');
    double.favourite(bob, mine.id);
    double.reblog(bob, mine.id);
    const all = await masto.v1.notifications.list({ types: ['mention', 'favourite', 'reblog'] });
    expect(all.map((n) => n.type).sort()).toEqual(['favourite', 'mention', 'reblog']);
    const mention = all.find((n) => n.type === 'mention')!;
    expect(mention.status?.inReplyToId).toBe(mine.id);
    expect(mention.status?.url).toBe(reply.url);
    expect(mention.account.url).toBe('https://elsewhere.example/@bob');
    const favourites = await masto.v1.notifications.list({ types: ['favourite'] });
    expect(favourites.map((n) => [n.type, n.status?.id, n.account.id])).toEqual([['favourite', mine.id, bob.id]]);
    const newest = all
      .map((n) => n.id)
      .sort((a, b) => (a.length === b.length ? (a < b ? -1 : 1) : a.length - b.length))
      .at(-1)!;
    expect(await masto.v1.notifications.list({ sinceId: newest })).toEqual([]);
    expect((await masto.v1.statuses.$select(mine.id).favouritedBy.list()).map((a) => a.id)).toEqual([bob.id]);
    expect((await masto.v1.statuses.$select(mine.id).rebloggedBy.list()).map((a) => a.acct)).toEqual(['bob@elsewhere.example']);
    expect((await masto.v1.accounts.$select(bob.id).fetch()).username).toBe('bob');
    double.unfavourite(bob, mine.id);
    expect(await masto.v1.statuses.$select(mine.id).favouritedBy.list()).toEqual([]);
    double.deleteStatus(reply.id);
    const gone = await masto.v1.statuses
      .$select(reply.id)
      .fetch()
      .catch((e: unknown) => e);
    expect((gone as MastoHttpError).statusCode).toBe(404);
  });
});
