import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyndicationError, type SyndicationPost } from '../../src/syndication/client.js';
import { createMastodonClient, retryAfterMs } from '../../src/syndication/mastodon/client.js';
import { startMastodonDouble, type MastodonDouble } from '../helpers/mastodon-double.js';
import { phonePhoto } from '../helpers/photos.js';

const post = (over: Partial<SyndicationPost> = {}): SyndicationPost => ({
  url: 'https://me.example/alice/2026/01/a-post/',
  kind: 'note',
  name: null,
  text: 'Hello from my site',
  categories: [],
  photos: [],
  inReplyTo: null,
  likeOf: null,
  repostOf: null,
  ...over,
});

describe('the Mastodon client, against the API double', () => {
  let double: MastodonDouble;
  beforeAll(async () => {
    double = await startMastodonDouble({ mediaPolls: 2, maxCharacters: 120 });
  });
  afterAll(async () => {
    await double.close();
  });
  const client = (token = double.token) => createMastodonClient({ instanceUrl: double.origin, accessToken: token }, { mediaPollMs: 10 });

  it('verifies the token (the account as @user@host) and refuses a wrong one as final', async () => {
    expect(await client().verify()).toEqual({ name: `@alice@${new URL(double.origin).host}` });
    const error = await client('wrong')
      .verify()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyndicationError);
    expect((error as SyndicationError).transient).toBe(false);
    expect((error as SyndicationError).message).not.toContain('wrong');
  });

  it('publishes once per key: a retry gets the same status; onCreated hears of it first', async () => {
    const seen: string[] = [];
    const first = await client().publish(post(), 'key-a', async (copy) => {
      seen.push(copy.id);
    });
    const second = await client().publish(post(), 'key-a');
    expect(second).toEqual(first);
    expect(seen).toEqual([first.id]);
    expect(first.url).toBe(`${double.origin}/@alice/${first.id}`);
    expect(double.ownStatuses().filter((s) => s.idempotencyKey === 'key-a')).toHaveLength(1);
  });

  it("fits a long note to the instance's limit with the permalink", async () => {
    const copy = await client().publish(post({ text: 'word '.repeat(100), categories: ['tag'] }), 'key-long');
    const text = double.statuses.get(copy.id)!.text;
    expect(text.endsWith(`… ${post().url}`)).toBe(true);
  });

  it('uploads photos with their alt text and waits until they are processed', async () => {
    const bytes = await phonePhoto(300, 200);
    const copy = await client().publish(
      post({
        kind: 'photo',
        photos: [{ url: 'https://me.example/p.jpg', alt: 'A red and blue square', read: async () => ({ bytes, type: 'image/jpeg' }) }],
      }),
      'key-photo',
    );
    const status = double.statuses.get(copy.id)!;
    expect(status.media_ids).toHaveLength(1);
    expect(double.media.get(status.media_ids[0]!)?.description).toBe('A red and blue square');
    expect(double.requests.filter((r) => r.path.startsWith('/api/v1/media/')).length).toBeGreaterThanOrEqual(2);
  });

  it('replies, likes and reposts natively a post its search resolves', async () => {
    const remote = double.addStatus('https://elsewhere.example/@bob/9', { remote: true });
    const reply = await client().publish(post({ kind: 'reply', inReplyTo: remote.url, text: 'Agreed' }), 'key-reply');
    expect(double.statuses.get(reply.id)!.in_reply_to_id).toBe(remote.id);
    const like = await client().publish(post({ kind: 'like', likeOf: remote.url, text: '' }), 'key-like');
    expect(remote.favourited).toBe(true);
    expect(like.url).toBe(remote.url);
    const repost = await client().publish(post({ kind: 'repost', repostOf: remote.url, text: '' }), 'key-repost');
    expect(remote.reblogged).toBe(true);
    await client().remove(like);
    await client().remove(repost);
    expect([remote.favourited, remote.reblogged]).toEqual([false, false]);
    expect(client().isOnService(`${double.origin}/@bob/1`)).toBe(true);
    expect(client().isOnService('https://elsewhere.example/@bob/9')).toBe(false);
  });

  it('a like of a post nobody knows fails for good', async () => {
    const error = await client()
      .publish(post({ kind: 'like', likeOf: 'https://nowhere.example/1' }), 'key-nolike')
      .catch((e: unknown) => e);
    expect((error as SyndicationError).transient).toBe(false);
  });

  it('edits a copy (keeping its photos) and deletes it; a copy already gone counts as deleted', async () => {
    const copy = await client().publish(post({ text: 'before' }), 'key-edit');
    await client().update(post({ text: 'after' }), copy);
    expect(double.statuses.get(copy.id)).toMatchObject({ text: 'after', edits: 1 });
    await client().remove(copy);
    expect(double.statuses.get(copy.id)!.deleted).toBe(true);
    await client().remove(copy);
  });

  it('network errors, 5xx and 429 are transient with the wait the service named; other 4xx are final', async () => {
    double.fail({ status: 503, headers: { 'retry-after': '7' }, path: '/api/v1/statuses' });
    const busy = (await client()
      .publish(post(), 'key-busy')
      .catch((e: unknown) => e)) as SyndicationError;
    expect([busy.transient, busy.retryAfterMs]).toEqual([true, 7000]);
    const reset = new Date(Date.now() + 60_000).toISOString();
    double.fail({ status: 429, headers: { 'x-ratelimit-reset': reset }, path: '/api/v1/statuses' });
    const limited = (await client()
      .publish(post(), 'key-limited')
      .catch((e: unknown) => e)) as SyndicationError;
    expect(limited.transient).toBe(true);
    expect(limited.retryAfterMs).toBeGreaterThan(50_000);
    double.fail({ status: 422, body: { error: 'Validation failed: nope' }, path: '/api/v1/statuses' });
    const refused = (await client()
      .publish(post(), 'key-refused')
      .catch((e: unknown) => e)) as SyndicationError;
    expect(refused.transient).toBe(false);
    expect(refused.message).toContain('Validation failed: nope');
    const down = createMastodonClient({ instanceUrl: 'http://127.0.0.1:9', accessToken: 't' });
    expect(((await down.verify().catch((e: unknown) => e)) as SyndicationError).transient).toBe(true);
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000)).toBe(6000);
    expect(retryAfterMs(new Headers())).toBeNull();
  });
});
