/**
 * The Bluesky client of the syndication feature (issue 33): one account on
 * one PDS, signed in with an app password, speaking XRPC (xrpc.ts).
 *
 * - A note, an article or a photo post becomes an `app.bsky.feed.post`
 *   (text.ts says what text), photos an `app.bsky.embed.images` embed with
 *   their alt text (at most 4, each under 1,000,000 bytes), a shortened post
 *   a link card for the permalink.
 * - `in-reply-to` a Bluesky post makes a reply (root and parent refs),
 *   `like-of` / `repost-of` one an `app.bsky.feed.like` / `repost` record.
 * - Exactly once: the record key is a TID derived from the job's key
 *   (tid.ts); `publish` first looks for a record at that key and adopts it,
 *   because a second `createRecord` at a taken key answers 500, not 409.
 * - Bluesky has no edits: `update` leaves the copy as it is.
 * @see docs/syndication.md ("Bluesky in detail")
 * @module
 */
import { fitWithin } from '../../media/photo-fit.js';
import { SyndicationError, type SyndicatedCopy, type SyndicationClient, type SyndicationPhoto, type SyndicationPost } from '../client.js';
import { createBlueskyBackfeed } from './backfeed.js';
import { cardDescription, composePostText, displayUrl } from './text.js';
import { tidFromKey } from './tid.js';
import { createXrpc, XrpcError, type Xrpc } from './xrpc.js';

/** One Bluesky target, with its decrypted app password. */
export interface BlueskyTarget {
  /** The PDS that hosts the account, e.g. `https://bsky.social`. */
  readonly pdsUrl: string;
  readonly handle: string;
  readonly appPassword: string;
  /** For tests and the outbound policy; the global fetch by default. */
  readonly fetch?: typeof fetch;
}

/** `app.bsky.embed.images` takes at most 4 images, each a blob of at most 1,000,000 bytes. */
export const MAX_IMAGES = 4;
export const MAX_IMAGE_BYTES = 1_000_000;
/** The Bluesky app's own uploads are at most 2000 × 2000. */
const MAX_IMAGE_PIXELS = 2000 * 2000;

const POST = 'app.bsky.feed.post';
const LIKE = 'app.bsky.feed.like';
const REPOST = 'app.bsky.feed.repost';

/** `https://bsky.app/profile/{DID or handle}/post/{rkey}`, the form of every Bluesky post URL. */
const POST_URL = /^https:\/\/bsky\.app\/profile\/([^/?#]+)\/post\/([234567a-z]{1,512})\/?(?:[?#].*)?$/i;

interface StrongRef {
  readonly uri: string;
  readonly cid: string;
}

interface StoredRecord extends StrongRef {
  readonly value: { readonly reply?: { readonly root?: StrongRef } } & Record<string, unknown>;
}

interface BlobRef {
  readonly $type: 'blob';
  readonly ref: { readonly $link: string };
  readonly mimeType: string;
  readonly size: number;
}

/** The actor and record key of a Bluesky post URL, or null when `url` is not one. */
export function parsePostUrl(url: string): { readonly actor: string; readonly rkey: string } | null {
  const match = POST_URL.exec(url.trim());
  if (match === null) return null;
  return { actor: decodeURIComponent(match[1]!), rkey: match[2]! };
}

/** `at://{did}/{collection}/{rkey}` parts, or null. */
function parseAtUri(uri: string): { readonly repo: string; readonly collection: string; readonly rkey: string } | null {
  const match = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri);
  return match === null ? null : { repo: match[1]!, collection: match[2]!, rkey: match[3]! };
}

const postUrl = (did: string, rkey: string) => `https://bsky.app/profile/${did}/post/${rkey}`;

/** A client for one Bluesky account. */
export function createBlueskyClient(target: BlueskyTarget): SyndicationClient {
  const xrpc = createXrpc({
    pdsUrl: target.pdsUrl,
    identifier: target.handle.replace(/^@/, ''),
    password: target.appPassword,
    fetch: target.fetch,
  });

  return {
    async verify() {
      const session = await xrpc.session();
      return { name: session.handle };
    },

    async publish(post, key, onCreated) {
      const interaction = interactionOf(post);
      if (interaction === 'not on Bluesky') {
        const what = post.likeOf !== null ? 'like' : 'repost';
        throw new SyndicationError(`a ${what} of a post that is not on Bluesky cannot be copied there`, { transient: false });
      }
      const collection = interaction?.collection ?? POST;
      const { did } = await xrpc.session();
      const rkey = tidFromKey(key);
      // a like or repost is shown by the post it is of, named by DID (a handle can change)
      const copyOf = (uri: string, subject: unknown): SyndicatedCopy => {
        if (interaction === null) return { id: uri, url: postUrl(did, rkey) };
        const parts = isStrongRef(subject) ? parseAtUri(subject.uri) : null;
        return { id: uri, url: parts === null ? interaction.subjectUrl : postUrl(parts.repo, parts.rkey) };
      };

      const adopted = await getRecord(xrpc, did, collection, rkey);
      if (adopted !== null) {
        const copy = copyOf(adopted.uri, adopted.value.subject);
        await onCreated?.(copy);
        return copy;
      }
      const record =
        interaction === null
          ? await postRecord(xrpc, post)
          : { $type: collection, subject: await strongRefOf(xrpc, interaction.subjectUrl), createdAt: new Date().toISOString() };
      let created: StrongRef;
      try {
        created = await xrpc.call<StrongRef>('POST', 'com.atproto.repo.createRecord', {
          json: { repo: did, collection, rkey, record },
        });
      } catch (error) {
        // the record may exist after all: an answer lost on the way back, or another worker's attempt (whose
        // second createRecord at the key answers 500)
        if (!(error instanceof SyndicationError) || !error.transient) throw error;
        const there = await getRecord(xrpc, did, collection, rkey);
        if (there === null) throw error;
        created = there;
      }
      const copy = copyOf(created.uri, record.subject);
      await onCreated?.(copy);
      return copy;
    },

    async update() {
      // Bluesky has no edits: a post stays as it was first sent (docs/syndication.md ("Bluesky in detail"))
    },

    async remove(copy) {
      const parts = parseAtUri(copy.id);
      if (parts === null) throw new SyndicationError(`not a Bluesky record: ${copy.id}`, { transient: false });
      try {
        await xrpc.call('POST', 'com.atproto.repo.deleteRecord', { json: parts });
      } catch (error) {
        if (error instanceof XrpcError && error.error === 'RecordNotFound') return;
        throw error;
      }
    },

    isOnService(url) {
      return parsePostUrl(url) !== null;
    },

    backfeed: createBlueskyBackfeed(xrpc),
  };
}

function isStrongRef(value: unknown): value is StrongRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as StrongRef).uri === 'string' &&
    typeof (value as StrongRef).cid === 'string'
  );
}

/** A like or repost of a Bluesky post; null for a post of our own; 'not on Bluesky' for a like or repost of anything else. */
function interactionOf(post: SyndicationPost): { readonly collection: string; readonly subjectUrl: string } | null | 'not on Bluesky' {
  if (post.likeOf !== null) return parsePostUrl(post.likeOf) === null ? 'not on Bluesky' : { collection: LIKE, subjectUrl: post.likeOf };
  if (post.repostOf !== null)
    return parsePostUrl(post.repostOf) === null ? 'not on Bluesky' : { collection: REPOST, subjectUrl: post.repostOf };
  return null;
}

/** The record at `rkey`, or null when there is none. */
async function getRecord(xrpc: Xrpc, repo: string, collection: string, rkey: string): Promise<StoredRecord | null> {
  try {
    return await xrpc.call<StoredRecord>('GET', 'com.atproto.repo.getRecord', { params: { repo, collection, rkey } });
  } catch (error) {
    if (error instanceof XrpcError && error.error === 'RecordNotFound') return null;
    throw error;
  }
}

/** The DID behind the actor of a post URL: as written when it is a DID, else its handle resolved. */
async function didOf(xrpc: Xrpc, actor: string): Promise<string> {
  if (actor.startsWith('did:')) return actor;
  const { did } = await xrpc.call<{ did: string }>('GET', 'com.atproto.identity.resolveHandle', { params: { handle: actor } });
  return did;
}

/** The post at a Bluesky post URL, as stored (its URI, CID and value). */
async function postAt(xrpc: Xrpc, url: string): Promise<StoredRecord> {
  const parsed = parsePostUrl(url)!;
  const found = await getRecord(xrpc, await didOf(xrpc, parsed.actor), POST, parsed.rkey);
  if (found === null) throw new SyndicationError(`the Bluesky post ${url} does not exist (any more)`, { transient: false });
  return found;
}

async function strongRefOf(xrpc: Xrpc, url: string): Promise<StrongRef> {
  const { uri, cid } = await postAt(xrpc, url);
  return { uri, cid };
}

/** The `app.bsky.feed.post` record for an entry: text and facets, then the embed and the reply refs. */
async function postRecord(xrpc: Xrpc, post: SyndicationPost): Promise<Record<string, unknown>> {
  const composed = composePostText(post);
  const images = await uploadPhotos(xrpc, post.photos);
  let text = composed.text;
  let facets = composed.facets;
  if (text === '' && images.length === 0) {
    // nothing of the entry to show (an empty note): the permalink says where it is
    ({ text, facets } = composePostText({ url: post.url, name: null, text: post.url, categories: [] }));
  }
  let embed: Record<string, unknown> | undefined;
  if (images.length > 0) embed = { $type: 'app.bsky.embed.images', images };
  else if (composed.shortened)
    embed = {
      $type: 'app.bsky.embed.external',
      external: { uri: post.url, title: post.name?.trim() || displayUrl(post.url), description: cardDescription(post.text) },
    };
  let reply: { root: StrongRef; parent: StrongRef } | undefined;
  if (post.inReplyTo !== null && parsePostUrl(post.inReplyTo) !== null) {
    const parent = await postAt(xrpc, post.inReplyTo);
    const parentRef = { uri: parent.uri, cid: parent.cid };
    const root = parent.value.reply?.root;
    reply = { root: root?.uri && root.cid ? { uri: root.uri, cid: root.cid } : parentRef, parent: parentRef };
  }
  return {
    $type: POST,
    text,
    ...(facets.length > 0 ? { facets } : {}),
    ...(embed === undefined ? {} : { embed }),
    ...(reply === undefined ? {} : { reply }),
    createdAt: new Date().toISOString(),
  };
}

/** The first 4 readable photos fitted under Bluesky's limits and uploaded, as the images of the embed. */
async function uploadPhotos(xrpc: Xrpc, photos: readonly SyndicationPhoto[]): Promise<Record<string, unknown>[]> {
  const images: Record<string, unknown>[] = [];
  for (const photo of photos) {
    if (images.length === MAX_IMAGES) break;
    const stored = await photo.read();
    if (stored === null) continue;
    let fitted: Awaited<ReturnType<typeof fitWithin>>;
    try {
      fitted = await fitWithin(stored.bytes, { maxBytes: MAX_IMAGE_BYTES, maxPixels: MAX_IMAGE_PIXELS });
    } catch (cause) {
      throw new SyndicationError(`the photo ${photo.url} cannot be made small enough for Bluesky`, { transient: false, cause });
    }
    const { blob } = await xrpc.call<{ blob: BlobRef }>('POST', 'com.atproto.repo.uploadBlob', {
      bytes: { data: fitted.bytes, type: fitted.mediaType },
    });
    images.push({ alt: photo.alt, image: blob, aspectRatio: { width: fitted.width, height: fitted.height } });
  }
  return images;
}
