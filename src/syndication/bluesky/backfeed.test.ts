import { describe, expect, it } from 'vitest';
import { SyndicationError } from '../client.js';
import { createBlueskyBackfeed, responseOf, type Notification } from './backfeed.js';
import { createXrpc } from './xrpc.js';

const SELF = 'did:plc:alice';
const COPY = `at://${SELF}/app.bsky.feed.post/3copy`;
const bob = { did: 'did:plc:bob', handle: 'bob.test', displayName: 'Bob B', avatar: 'https://cdn.example/bob.jpg' };

function notification(reason: string, record: Record<string, unknown>, extra: Partial<Notification> = {}): Notification {
  return {
    uri: `at://${bob.did}/app.bsky.feed.${reason === 'like' ? 'like' : reason === 'repost' ? 'repost' : 'post'}/3resp`,
    cid: 'bafyreib',
    author: bob,
    reason,
    record,
    isRead: false,
    indexedAt: '2026-11-29T10:00:01.000Z',
    ...extra,
  };
}

describe('responseOf (listNotifications → a response on a copy)', () => {
  it('a reply: its bsky.app URL, parent as copy, root when it differs, text and createdAt', () => {
    const reply = notification('reply', {
      $type: 'app.bsky.feed.post',
      text: 'Nice!',
      createdAt: '2026-11-29T10:00:00.000Z',
      reply: { root: { uri: COPY, cid: 'c1' }, parent: { uri: 'at://did:plc:carol/app.bsky.feed.post/3mid', cid: 'c2' } },
    });
    expect(responseOf(reply, SELF)).toEqual({
      kind: 'reply',
      copyId: 'at://did:plc:carol/app.bsky.feed.post/3mid',
      rootId: COPY,
      siloId: reply.uri,
      url: 'https://bsky.app/profile/did:plc:bob/post/3resp',
      author: { id: bob.did, name: 'Bob B', url: 'https://bsky.app/profile/bob.test', photo: bob.avatar },
      contentHtml: null,
      contentText: 'Nice!',
      published: '2026-11-29T10:00:00.000Z',
    });
  });

  it('a like and a repost: the subject is the copy, the account the DID; no handle → a profile URL by DID', () => {
    const like = notification(
      'like',
      { subject: { uri: COPY, cid: 'c' }, createdAt: 'not a date' },
      { author: { did: bob.did, handle: 'handle.invalid' } },
    );
    expect(responseOf(like, SELF)).toMatchObject({
      kind: 'like',
      copyId: COPY,
      siloId: bob.did,
      url: null,
      author: { name: 'handle.invalid', url: `https://bsky.app/profile/${bob.did}`, photo: null },
      published: like.indexedAt,
    });
    expect(responseOf(notification('repost', { subject: { uri: COPY, cid: 'c' } }), SELF)).toMatchObject({ kind: 'repost', copyId: COPY });
  });

  it('a quote: the embedded record (or recordWithMedia’s) is the copy', () => {
    const plain = notification('quote', { text: 'look', embed: { $type: 'app.bsky.embed.record', record: { uri: COPY, cid: 'c' } } });
    expect(responseOf(plain, SELF)).toMatchObject({ kind: 'quote', copyId: COPY, contentText: 'look' });
    const withMedia = notification('quote', {
      text: 'look',
      embed: { $type: 'app.bsky.embed.recordWithMedia', record: { record: { uri: COPY, cid: 'c' } }, media: {} },
    });
    expect(responseOf(withMedia, SELF)).toMatchObject({ kind: 'quote', copyId: COPY });
  });

  it('leaves out the user’s own, follows, mentions and unknown reasons', () => {
    expect(
      responseOf(notification('reply', { reply: { parent: { uri: COPY } } }, { author: { did: SELF, handle: 'a.test' } }), SELF),
    ).toBeNull();
    for (const reason of ['follow', 'mention', 'like-via-repost', 'starterpack-joined'])
      expect(responseOf(notification(reason, { subject: { uri: COPY } }), SELF)).toBeNull();
  });
});

/** A fetch answering createSession and the AppView reads the client makes, recording each request's URL. */
function fakePds(pages: Record<string, unknown>[], extra: Record<string, (url: URL) => Response> = {}) {
  const urls: URL[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    const url = new URL(input instanceof Request ? input.url : input);
    urls.push(url);
    const nsid = url.pathname.replace('/xrpc/', '');
    if (nsid === 'com.atproto.server.createSession')
      return Response.json({ did: SELF, handle: 'alice.test', accessJwt: 'access', refreshJwt: 'refresh' });
    if (nsid === 'app.bsky.notification.listNotifications') {
      const index = Number(url.searchParams.get('cursor') ?? '0');
      return Response.json(pages[index] ?? { notifications: [] });
    }
    return extra[nsid]?.(url) ?? Response.json({ error: 'MethodNotImplemented' }, { status: 501 });
  };
  return { urls, fetch };
}

const like = (did: string, indexedAt: string) =>
  notification('like', { subject: { uri: COPY, cid: 'c' } }, { uri: `at://${did}/app.bsky.feed.like/3l`, author: { did }, indexedAt });

describe('createBlueskyBackfeed', () => {
  const client = (fetch: typeof globalThis.fetch) =>
    createBlueskyBackfeed(createXrpc({ pdsUrl: 'https://pds.example', identifier: 'alice.test', password: 'pw', fetch }));

  it('asks for the four reasons, pages back to the kept cursor, returns oldest first and the newest indexedAt', async () => {
    const pds = fakePds([
      { notifications: [like('did:plc:d', '2026-11-29T10:00:05.000Z'), like('did:plc:c', '2026-11-29T10:00:04.000Z')], cursor: '1' },
      { notifications: [like('did:plc:b', '2026-11-29T10:00:03.000Z'), like('did:plc:a', '2026-11-29T10:00:01.000Z')], cursor: '2' },
      { notifications: [like('did:plc:z', '2026-11-29T09:00:00.000Z')] },
    ]);
    // the kept cursor is 10:10:03; 10 minutes before it are read again (late-indexed notifications sort earlier)
    const { responses, cursor } = await client(pds.fetch).responses('2026-11-29T10:10:03.000Z');
    expect(responses.map((response) => response.siloId)).toEqual(['did:plc:b', 'did:plc:c', 'did:plc:d']);
    expect(cursor).toBe('2026-11-29T10:10:03.000Z');
    const listed = pds.urls.filter((url) => url.pathname.endsWith('listNotifications'));
    expect(listed).toHaveLength(2);
    expect(listed[0]!.searchParams.getAll('reasons')).toEqual(['reply', 'like', 'repost', 'quote']);
    expect(listed[1]!.searchParams.get('cursor')).toBe('1');
  });

  it('nothing new keeps the cursor', async () => {
    const pds = fakePds([{ notifications: [] }]);
    expect(await client(pds.fetch).responses('2026-11-29T10:00:00.000Z')).toEqual({ responses: [], cursor: '2026-11-29T10:00:00.000Z' });
  });

  it('responders pages getLikes / getRepostedBy; responseExists asks getPosts', async () => {
    const pds = fakePds([], {
      'app.bsky.feed.getLikes': (url) =>
        Response.json(
          url.searchParams.get('cursor') === null
            ? { uri: COPY, likes: [{ actor: { did: 'did:plc:a' } }], cursor: 'next' }
            : { uri: COPY, likes: [{ actor: { did: 'did:plc:b' } }] },
        ),
      'app.bsky.feed.getRepostedBy': () => Response.json({ uri: COPY, repostedBy: [{ did: 'did:plc:c' }] }),
      'app.bsky.feed.getPosts': (url) =>
        Response.json({
          posts: url.searchParams.get('uris') === 'at://x/app.bsky.feed.post/1' ? [{ uri: 'at://x/app.bsky.feed.post/1' }] : [],
        }),
    });
    const backfeed = client(pds.fetch);
    expect([...(await backfeed.responders(COPY, 'like'))!]).toEqual(['did:plc:a', 'did:plc:b']);
    expect([...(await backfeed.responders(COPY, 'repost'))!]).toEqual(['did:plc:c']);
    expect(await backfeed.responseExists('at://x/app.bsky.feed.post/1')).toBe(true);
    expect(await backfeed.responseExists('at://x/app.bsky.feed.post/2')).toBe(false);
  });

  it('429 is transient with the wait of ratelimit-reset', async () => {
    const reset = Math.floor(Date.now() / 1000) + 120;
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = new URL(input instanceof Request ? input.url : input);
      if (url.pathname.endsWith('createSession')) return Response.json({ did: SELF, handle: 'a', accessJwt: 'x', refreshJwt: 'y' });
      return Response.json({ error: 'RateLimitExceeded' }, { status: 429, headers: { 'ratelimit-reset': String(reset) } });
    };
    const error = await client(fetch)
      .responses(null)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SyndicationError);
    expect((error as SyndicationError).transient).toBe(true);
    expect((error as SyndicationError).retryAfterMs).toBeGreaterThan(100_000);
  });
});
