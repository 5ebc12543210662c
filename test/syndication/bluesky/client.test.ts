/**
 * The Bluesky client against a real PDS (test/helpers/pds.ts): what each
 * kind of post leaves in the account's repository, exactly-once publishing,
 * and how failures reach the job.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlueskyClient } from '../../../src/syndication/bluesky/client.js';
import { graphemeCount } from '../../../src/core/graphemes.js';
import { tidFromKey } from '../../../src/syndication/bluesky/tid.js';
import { SyndicationError, type SyndicatedCopy, type SyndicationPhoto, type SyndicationPost } from '../../../src/syndication/client.js';
import { expiredToken, startPds, startPdsProxy, type PdsAccount, type TestPds } from '../../helpers/pds.js';
import { redLeftBlueRight } from '../../helpers/photos.js';

let pds: TestPds;
let alice: PdsAccount;
let bob: PdsAccount;
let keys = 0;
/** A key no other test uses, as the feature derives one from entry and target. */
const newKey = () => `https://alice.example/entries/${++keys} -> target-1`;

beforeAll(async () => {
  pds = await startPds();
  [alice, bob] = await Promise.all([pds.createAccount('alice'), pds.createAccount('bob')]);
});
afterAll(async () => {
  await pds?.close();
});

const client = (options: { pdsUrl?: string; appPassword?: string; fetch?: typeof fetch } = {}) =>
  createBlueskyClient({ pdsUrl: pds.url, handle: alice.handle, appPassword: alice.appPassword, ...options });

function entry(fields: Partial<SyndicationPost> = {}): SyndicationPost {
  return {
    url: `https://alice.example/2026/11/29/note-${keys}`,
    kind: 'note',
    name: null,
    text: 'Hello from my own site',
    categories: [],
    photos: [],
    inReplyTo: null,
    likeOf: null,
    repostOf: null,
    ...fields,
  };
}

interface StoredPost {
  uri: string;
  cid: string;
  value: {
    text: string;
    facets?: { index: { byteStart: number; byteEnd: number }; features: Record<string, unknown>[] }[];
    embed?: Record<string, unknown> & { $type: string };
    reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } };
    subject?: { uri: string; cid: string };
  };
}

/** The record a copy names, read back from the PDS. */
function recordOf(copy: SyndicatedCopy): Promise<StoredPost> {
  const [, , repo, collection, rkey] = copy.id.split('/');
  return pds.xrpc<StoredPost>('GET', 'com.atproto.repo.getRecord', { repo, collection, rkey });
}

async function recordsIn(collection: string, account: PdsAccount = alice): Promise<StoredPost[]> {
  const { records } = await pds.xrpc<{ records: StoredPost[] }>('GET', 'com.atproto.repo.listRecords', {
    repo: account.did,
    collection,
    limit: 100,
  });
  return records;
}

/** A post of bob's own, as the Bluesky app would make it; its bsky.app URL by handle. */
async function bobPosts(text: string, reply?: StoredPost['value']['reply']): Promise<{ url: string; uri: string; cid: string }> {
  const created = await pds.xrpc<{ uri: string; cid: string }>(
    'POST',
    'com.atproto.repo.createRecord',
    {
      repo: bob.did,
      collection: 'app.bsky.feed.post',
      record: { $type: 'app.bsky.feed.post', text, createdAt: new Date().toISOString(), ...(reply ? { reply } : {}) },
    },
    bob,
  );
  return { ...created, url: `https://bsky.app/profile/${bob.handle}/post/${created.uri.split('/').pop()}` };
}

async function failure(promise: Promise<unknown>): Promise<SyndicationError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SyndicationError);
  return error as SyndicationError;
}

describe('verify', () => {
  it('names the account for a good app password', async () => {
    await expect(client().verify()).resolves.toEqual({ name: 'alice.test' });
  });

  it('fails for good, without the password in the message, for a wrong app password', async () => {
    const wrong = 'abcd-efgh-ijkl-mnop';
    const error = await failure(client({ appPassword: wrong }).verify());
    expect(error.transient).toBe(false);
    expect(error.message).toMatch(/createSession answered 401/);
    expect(error.message).not.toContain(wrong);
  });

  it('fails as transient when the PDS cannot be reached', async () => {
    const error = await failure(client({ pdsUrl: 'http://127.0.0.1:9' }).verify());
    expect(error.transient).toBe(true);
  });
});

describe('publish', () => {
  it('posts a note that fits in full at the TID of the key, and names the copy at once', async () => {
    const key = newKey();
    const named: SyndicatedCopy[] = [];
    const copy = await client().publish(entry({ text: 'Hello, Bluesky! 👋' }), key, async (created) => {
      named.push(created);
    });
    const rkey = tidFromKey(key);
    expect(copy).toEqual({
      id: `at://${alice.did}/app.bsky.feed.post/${rkey}`,
      url: `https://bsky.app/profile/${alice.did}/post/${rkey}`,
    });
    expect(named).toEqual([copy]);
    const { value } = await recordOf(copy);
    expect(value).toMatchObject({ $type: 'app.bsky.feed.post', text: 'Hello, Bluesky! 👋' });
    expect(value.facets).toBeUndefined();
    expect(value.embed).toBeUndefined();
  });

  it('shortens a long note at a word, with the permalink as a link facet at its byte offsets and a link card', async () => {
    const text = `Grüße aus Köln 🎉🇩🇪 — ${Array.from({ length: 70 }, (_, i) => `wörter${i}`).join(' ')}`;
    const post = entry({ text, url: 'https://alice.example/2026/11/29/long-note', categories: ['cologne'] });
    const copy = await client().publish(post, newKey());
    const { value } = await recordOf(copy);
    expect(graphemeCount(value.text)).toBeLessThanOrEqual(300);
    expect(value.text).toMatch(/^Grüße aus Köln 🎉🇩🇪 — wörter0 .* wörter\d+… alice\.example\/2026\/11\/29\/l\.\.\.$/u);
    const bytes = Buffer.from(value.text, 'utf8');
    expect(value.facets).toEqual([
      {
        index: { byteStart: bytes.length - Buffer.byteLength('alice.example/2026/11/29/l...'), byteEnd: bytes.length },
        features: [{ $type: 'app.bsky.richtext.facet#link', uri: post.url }],
      },
    ]);
    const [facet] = value.facets!;
    expect(bytes.subarray(facet!.index.byteStart, facet!.index.byteEnd).toString('utf8')).toBe('alice.example/2026/11/29/l...');
    expect(value.embed).toMatchObject({
      $type: 'app.bsky.embed.external',
      external: { uri: post.url, title: 'alice.example/2026/11/29/l...' },
    });
  });

  it('adds categories as hashtag facets when they fit', async () => {
    const copy = await client().publish(entry({ text: 'Tagged', categories: ['IndieWeb', 'POSSE'] }), newKey());
    const { value } = await recordOf(copy);
    expect(value.text).toBe('Tagged\n\n#IndieWeb #POSSE');
    expect(value.facets?.map((facet) => facet.features[0])).toEqual([
      { $type: 'app.bsky.richtext.facet#tag', tag: 'IndieWeb' },
      { $type: 'app.bsky.richtext.facet#tag', tag: 'POSSE' },
    ]);
  });

  it('posts an article as its name and permalink, with a link card', async () => {
    const post = entry({ kind: 'article', name: 'Why I own my words', text: 'A long essay. '.repeat(200) });
    const copy = await client().publish(post, newKey());
    const { value } = await recordOf(copy);
    expect(value.text).toBe(`Why I own my words\n\nalice.example/2026/11/29/n...`);
    expect(value.facets?.[0]?.features).toEqual([{ $type: 'app.bsky.richtext.facet#link', uri: post.url }]);
    expect(value.embed).toMatchObject({
      $type: 'app.bsky.embed.external',
      external: { uri: post.url, title: 'Why I own my words', description: expect.stringMatching(/^A long essay\. .*…$/) },
    });
  });

  it('uploads up to 4 photos under 1,000,000 bytes each, with their alt text in the images embed', async () => {
    // noisy 2400×1600 JPEGs at full quality: well over Bluesky's limit
    const big = await sharp(redLeftBlueRight(2400, 1600), { raw: { width: 2400, height: 1600, channels: 3 } })
      .jpeg({ quality: 100 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(1_000_000);
    const photo = (n: number): SyndicationPhoto => ({
      url: `https://alice.example/media/${n}.jpg`,
      alt: `Photo ${n}: red on the left, blue on the right`,
      read: async () => ({ bytes: big, type: 'image/jpeg' }),
    });
    const unreadable: SyndicationPhoto = { url: 'https://elsewhere.example/x.jpg', alt: 'not ours', read: async () => null };
    const copy = await client().publish(
      entry({ kind: 'photo', text: 'Five photos', photos: [photo(1), unreadable, photo(2), photo(3), photo(4), photo(5)] }),
      newKey(),
    );
    const { value } = await recordOf(copy);
    const images = (
      value.embed as unknown as { images: { alt: string; image: { ref: { $link: string }; size: number; mimeType: string } }[] }
    ).images;
    expect(value.embed?.$type).toBe('app.bsky.embed.images');
    expect(images.map((image) => image.alt)).toEqual([1, 2, 3, 4].map((n) => `Photo ${n}: red on the left, blue on the right`));
    for (const image of images) {
      expect(image.image.mimeType).toBe('image/jpeg');
      expect(image.image.size).toBeLessThanOrEqual(1_000_000);
      const response = await fetch(`${pds.url}/xrpc/com.atproto.sync.getBlob?did=${alice.did}&cid=${image.image.ref.$link}`);
      expect(response.status).toBe(200);
      const blob = Buffer.from(await response.arrayBuffer());
      expect(blob.length).toBe(image.image.size);
      const meta = await sharp(blob).metadata();
      expect(meta.width! * meta.height!).toBeLessThanOrEqual(2000 * 2000);
    }
  });

  it('replies with root and parent refs: to a post, then to that reply (root stays the first post)', async () => {
    const root = await bobPosts('A question for the IndieWeb');
    const first = await client().publish(entry({ kind: 'reply', text: 'An answer', inReplyTo: root.url }), newKey());
    const firstRecord = await recordOf(first);
    expect(firstRecord.value.reply).toEqual({ root: { uri: root.uri, cid: root.cid }, parent: { uri: root.uri, cid: root.cid } });

    const second = await client().publish(entry({ kind: 'reply', text: 'And a follow-up', inReplyTo: first.url }), newKey());
    expect((await recordOf(second)).value.reply).toEqual({
      root: { uri: root.uri, cid: root.cid },
      parent: { uri: firstRecord.uri, cid: firstRecord.cid },
    });
  });

  it('fails for good when the post replied to does not exist', async () => {
    const error = await failure(
      client().publish(entry({ kind: 'reply', inReplyTo: `https://bsky.app/profile/${bob.did}/post/2222222222222` }), newKey()),
    );
    expect(error.transient).toBe(false);
    expect(error.message).toMatch(/does not exist/);
  });

  it('posts a reply to a post elsewhere as a plain post', async () => {
    const copy = await client().publish(entry({ kind: 'reply', text: 'Nice post', inReplyTo: 'https://blog.example/post' }), newKey());
    expect((await recordOf(copy)).value.reply).toBeUndefined();
  });

  it('likes and reposts a Bluesky post (by handle) with a strong ref', async () => {
    const target = await bobPosts('Worth sharing');
    const likeKey = newKey();
    const like = await client().publish(entry({ kind: 'like', text: '', likeOf: target.url }), likeKey);
    const repost = await client().publish(entry({ kind: 'repost', text: '', repostOf: target.url }), newKey());
    expect(like.id).toMatch(new RegExp(`^at://${alice.did}/app\\.bsky\\.feed\\.like/`));
    expect(repost.id).toMatch(new RegExp(`^at://${alice.did}/app\\.bsky\\.feed\\.repost/`));
    // the copy is shown by the post liked, named by DID
    expect(like.url).toBe(`https://bsky.app/profile/${bob.did}/post/${target.uri.split('/').pop()}`);
    expect(repost.url).toBe(like.url);
    const again = await client().publish(entry({ kind: 'like', text: '', likeOf: target.url }), likeKey);
    expect(again).toEqual(like);
    expect((await recordOf(like)).value.subject).toEqual({ uri: target.uri, cid: target.cid });
    expect((await recordOf(repost)).value.subject).toEqual({ uri: target.uri, cid: target.cid });
  });

  it('fails for good on a like of a post that is not on Bluesky', async () => {
    const error = await failure(client().publish(entry({ kind: 'like', likeOf: 'https://blog.example/post' }), newKey()));
    expect(error.transient).toBe(false);
  });

  it('publishes once per key: a second publish adopts the record, and so do two at the same time', async () => {
    const key = newKey();
    const named: SyndicatedCopy[] = [];
    const onCreated = async (copy: SyndicatedCopy) => {
      named.push(copy);
    };
    const first = await client().publish(entry({ text: 'Only once' }), key, onCreated);
    const again = await client().publish(entry({ text: 'Only once, edited' }), key, onCreated);
    expect(again).toEqual(first);
    expect(named).toEqual([first, first]);
    expect((await recordOf(first)).value.text).toBe('Only once');

    const raceKey = newKey();
    const both = await Promise.all([client(), client()].map((each) => each.publish(entry({ text: 'Raced' }), raceKey)));
    expect(both[1]).toEqual(both[0]);
    const rkeys = (await recordsIn('app.bsky.feed.post')).map((record) => record.uri.split('/').pop());
    expect(rkeys.filter((rkey) => rkey === tidFromKey(key))).toHaveLength(1);
    expect(rkeys.filter((rkey) => rkey === tidFromKey(raceKey))).toHaveLength(1);
  });

  it('another worker wins the race between lookup and create: its createRecord answers 500, and its record is adopted', async () => {
    const key = newKey();
    const statuses: number[] = [];
    const racing: typeof fetch = async (input, init) => {
      const isCreate = String(input instanceof Request ? input.url : input).endsWith('/com.atproto.repo.createRecord');
      if (isCreate) {
        // the rival worker's copy lands at the same key just before ours
        const { record, ...rest } = JSON.parse(String(init?.body)) as { record: Record<string, unknown> };
        await pds.xrpc('POST', 'com.atproto.repo.createRecord', { ...rest, record: { ...record, text: 'The rival' } }, alice);
      }
      const response = await fetch(input, init);
      if (isCreate) statuses.push(response.status);
      return response;
    };
    const copy = await client({ fetch: racing }).publish(entry({ text: 'Ours' }), key);
    expect(statuses).toEqual([500]);
    expect(copy.url).toBe(`https://bsky.app/profile/${alice.did}/post/${tidFromKey(key)}`);
    expect((await recordOf(copy)).value.text).toBe('The rival');
  });

  it('signs in once for all the clients of one account (Bluesky allows 30 sessions in 5 minutes)', async () => {
    const signIns: string[] = [];
    const counting: typeof fetch = async (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/com.atproto.server.createSession')) signIns.push('createSession');
      return fetch(input, init);
    };
    for (let i = 0; i < 3; i += 1) await client({ fetch: counting }).publish(entry({ text: `Job ${i}` }), newKey());
    expect(signIns).toEqual(['createSession']);
  });

  it('renews an expired access token and goes on', async () => {
    const calls: string[] = [];
    const expiring: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input);
      calls.push(url.pathname.replace('/xrpc/', ''));
      const response = await fetch(input, init);
      if (!url.pathname.endsWith('/com.atproto.server.createSession') || !response.ok) return response;
      const session = (await response.json()) as { accessJwt: string };
      return Response.json({ ...session, accessJwt: expiredToken(session.accessJwt, pds.jwtSecret) });
    };
    const copy = await client({ fetch: expiring }).publish(entry({ text: 'After a long pause' }), newKey());
    expect((await recordOf(copy)).value.text).toBe('After a long pause');
    // getRecord takes no session; createRecord refuses the expired token, and is made again after the refresh
    expect(calls).toEqual([
      'com.atproto.server.createSession',
      'com.atproto.repo.getRecord',
      'com.atproto.repo.createRecord',
      'com.atproto.server.refreshSession',
      'com.atproto.repo.createRecord',
    ]);
  });
});

describe('update and remove', () => {
  it('leaves the copy alone on update (Bluesky has no edits)', async () => {
    const copy = await client().publish(entry({ text: 'As first sent' }), newKey());
    await client().update(entry({ text: 'Edited on the site' }), copy);
    expect((await recordOf(copy)).value.text).toBe('As first sent');
  });

  it('deletes the copy, and a copy already gone counts as deleted', async () => {
    const copy = await client().publish(entry({ text: 'Soon gone' }), newKey());
    await client().remove(copy);
    await expect(recordOf(copy)).rejects.toThrow(/RecordNotFound/);
    await expect(client().remove(copy)).resolves.toBeUndefined();
  });
});

describe('failures through a proxy in front of the PDS', () => {
  it('503 with Retry-After: transient, retry after it; the retry publishes exactly one post', async () => {
    const proxy = await startPdsProxy(pds.url);
    try {
      const key = newKey();
      const viaProxy = client({ pdsUrl: proxy.url });
      proxy.fail({ nsid: 'com.atproto.repo.createRecord', status: 503, headers: { 'retry-after': '1' } });
      const error = await failure(viaProxy.publish(entry({ text: 'Through a hiccup' }), key));
      expect(error).toMatchObject({ transient: true, retryAfterMs: 1000 });
      const copy = await viaProxy.publish(entry({ text: 'Through a hiccup' }), key);
      expect((await recordOf(copy)).value.text).toBe('Through a hiccup');
      expect(proxy.requests.filter((request) => request.nsid === 'com.atproto.repo.createRecord').map((request) => request.status)).toEqual(
        [503, 200],
      );
    } finally {
      await proxy.close();
    }
  });

  it('an answer to createRecord lost on the way back: the post is there, found at its key and adopted in the same call', async () => {
    const proxy = await startPdsProxy(pds.url);
    try {
      const key = newKey();
      const named: SyndicatedCopy[] = [];
      proxy.fail({ nsid: 'com.atproto.repo.createRecord', status: 502, afterUpstream: true });
      const copy = await client({ pdsUrl: proxy.url }).publish(entry({ text: 'Made, but unheard' }), key, async (created) => {
        named.push(created);
      });
      expect(copy.url).toBe(`https://bsky.app/profile/${alice.did}/post/${tidFromKey(key)}`);
      expect(named).toEqual([copy]);
      expect(proxy.requests.map((request) => `${request.nsid} ${request.status}`).slice(-3)).toEqual([
        'com.atproto.repo.getRecord 400',
        'com.atproto.repo.createRecord 502',
        'com.atproto.repo.getRecord 200',
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('429 with ratelimit-reset: transient, retry at the reset time', async () => {
    const proxy = await startPdsProxy(pds.url);
    try {
      const reset = Math.floor(Date.now() / 1000) + 60;
      proxy.fail({ nsid: 'com.atproto.repo.getRecord', status: 429, headers: { 'ratelimit-reset': String(reset) } });
      const error = await failure(client({ pdsUrl: proxy.url }).publish(entry(), newKey()));
      expect(error.transient).toBe(true);
      expect(error.retryAfterMs).toBeGreaterThan(55_000);
      expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
    } finally {
      await proxy.close();
    }
  });

  it('another 4xx is final, with what the PDS said', async () => {
    const proxy = await startPdsProxy(pds.url);
    try {
      proxy.fail({ nsid: 'com.atproto.repo.createRecord', status: 400 });
      const error = await failure(client({ pdsUrl: proxy.url }).publish(entry(), newKey()));
      expect(error).toMatchObject({ transient: false, retryAfterMs: null });
      expect(error.message).toMatch(/createRecord answered 400/);
    } finally {
      await proxy.close();
    }
  });
});

describe('isOnService', () => {
  it.each([
    ['https://bsky.app/profile/alice.test/post/3jzfcijpj2z2a', true],
    ['https://bsky.app/profile/did:plc:abc123/post/3jzfcijpj2z2a', true],
    ['https://bsky.app/profile/alice.test', false],
    ['https://mastodon.example/@alice/1', false],
    ['https://bsky.app.evil.example/profile/a/post/3jzfcijpj2z2a', false],
  ])('%s → %s', (url, on) => {
    expect(client().isOnService(url)).toBe(on);
  });
});
