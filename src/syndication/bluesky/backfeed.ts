/**
 * Backfeed from Bluesky (issue 34): the responses on the account's copies,
 * read from `app.bsky.notification.listNotifications` through the PDS (which
 * proxies `app.bsky.*` to the AppView), reasons `reply`, `like`, `repost` and
 * `quote`. The notifications come newest first with a `cursor` that pages
 * back; the cursor kept between polls is the newest `indexedAt` seen, and a
 * poll pages back (at most {@link NOTIFICATION_PAGES} pages) until it reaches
 * it. `updateSeen` is never called: the user's unread count in their app is
 * left alone.
 *
 * Still there? `app.bsky.feed.getLikes` / `getRepostedBy` of a copy list who
 * likes or reposts it now; `app.bsky.feed.getPosts` says whether a reply or a
 * quote still exists.
 * @see https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/notification/listNotifications.json
 * @module
 */
import type { BackfeedClient, ResponseKind, SiloResponse } from '../client.js';
import type { Xrpc } from './xrpc.js';

/** `listNotifications` takes at most 100 a page. */
export const NOTIFICATION_LIMIT = 100;
/** Pages read back per poll at most (the rest waits: the cursor moves only as far as what was read). */
export const NOTIFICATION_PAGES = 5;
/**
 * How far before the kept cursor a poll reads again. A notification's `indexedAt` is the AppView's sort time,
 * the earlier of the record's `createdAt` and when it was indexed, so one indexed late (or written with a
 * `createdAt` in the past) lands behind notifications already seen; reading back this far catches it, and a
 * response read twice is stored once (same source).
 */
export const LOOKBACK_MS = 10 * 60_000;
/** `getLikes` / `getRepostedBy`: 100 a page, at most this many pages per copy. */
const ACCOUNT_PAGES = 10;

const REASONS: Readonly<Record<string, ResponseKind>> = { reply: 'reply', like: 'like', repost: 'repost', quote: 'quote' };

/** `app.bsky.actor.defs#profileView`, the fields used. */
interface ProfileView {
  readonly did: string;
  readonly handle?: string;
  readonly displayName?: string;
  readonly avatar?: string;
}

/** `app.bsky.notification.listNotifications#notification`. */
export interface Notification {
  readonly uri: string;
  readonly cid: string;
  readonly author: ProfileView;
  readonly reason: string;
  readonly reasonSubject?: string;
  readonly record: unknown;
  readonly isRead: boolean;
  readonly indexedAt: string;
}

interface Ref {
  readonly uri?: unknown;
}

/** The record of a notification, as far as it is read (a post, a like or a repost). */
interface NotifiedRecord {
  readonly text?: unknown;
  readonly createdAt?: unknown;
  readonly reply?: { readonly parent?: Ref; readonly root?: Ref };
  readonly subject?: Ref;
  readonly embed?: { readonly $type?: unknown; readonly record?: Ref & { readonly record?: Ref } };
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** `at://DID/app.bsky.feed.post/RKEY` as its bsky.app URL; null when it is not a post URI. */
export function postUrlOf(uri: string): string | null {
  const match = /^at:\/\/(did:[^/]+)\/app\.bsky\.feed\.post\/([^/]+)$/.exec(uri);
  return match === null ? null : `https://bsky.app/profile/${match[1]}/post/${match[2]}`;
}

/** The author's profile URL, by handle when it has a valid one (moderation rules name handles), else by DID. */
function profileUrl(author: ProfileView): string {
  const handle = str(author.handle);
  const id = handle !== null && handle !== 'handle.invalid' ? handle : author.did;
  return `https://bsky.app/profile/${id}`;
}

/** The post a quote embeds (`app.bsky.embed.record`, or `recordWithMedia` around one). */
function quotedUri(record: NotifiedRecord): string | null {
  const embed = record.embed;
  if (embed === undefined || embed === null) return null;
  if (embed.$type === 'app.bsky.embed.recordWithMedia') return str(embed.record?.record?.uri);
  return str(embed.record?.uri);
}

/** A notification as a response on a (possible) copy; null when it is none of the four kinds or is the user's own. */
export function responseOf(item: Notification, self: string): SiloResponse | null {
  const kind = REASONS[item.reason];
  if (kind === undefined || typeof item.author?.did !== 'string' || item.author.did === self) return null;
  const record = (typeof item.record === 'object' && item.record !== null ? item.record : {}) as NotifiedRecord;
  const created = str(record.createdAt);
  const published = created !== null && !Number.isNaN(Date.parse(created)) ? new Date(created).toISOString() : item.indexedAt;
  const author = {
    id: item.author.did,
    name: str(item.author.displayName)?.trim() || str(item.author.handle),
    url: profileUrl(item.author),
    photo: str(item.author.avatar),
  };
  if (kind === 'like' || kind === 'repost') {
    const subject = str(record.subject?.uri) ?? str(item.reasonSubject);
    if (subject === null) return null;
    return { kind, copyId: subject, siloId: item.author.did, url: null, author, contentHtml: null, contentText: null, published };
  }
  const url = postUrlOf(item.uri);
  if (url === null) return null;
  let copyId: string | null;
  let rootId: string | null = null;
  if (kind === 'reply') {
    copyId = str(record.reply?.parent?.uri);
    const root = str(record.reply?.root?.uri);
    if (root !== copyId) rootId = root;
  } else copyId = quotedUri(record) ?? str(item.reasonSubject);
  if (copyId === null) return null;
  const text = str(record.text);
  return { kind, copyId, rootId, siloId: item.uri, url, author, contentHtml: null, contentText: text, published };
}

/** The backfeed of one Bluesky account (its XRPC session). */
export function createBlueskyBackfeed(xrpc: Xrpc): BackfeedClient {
  return {
    async responses(cursor) {
      const { did: self } = await xrpc.session();
      const since = cursor === null || Number.isNaN(Date.parse(cursor)) ? null : new Date(Date.parse(cursor) - LOOKBACK_MS).toISOString();
      const seen: Notification[] = [];
      let page: string | null = null;
      for (let count = 0; count < NOTIFICATION_PAGES; count += 1) {
        const params: Record<string, string | string[]> = { limit: String(NOTIFICATION_LIMIT), reasons: Object.keys(REASONS) };
        if (page !== null) params.cursor = page;
        const answer: { notifications?: unknown; cursor?: unknown } | undefined = await xrpc.call(
          'GET',
          'app.bsky.notification.listNotifications',
          {
            params,
          },
        );
        const items = (Array.isArray(answer?.notifications) ? answer.notifications : []).filter(
          (item): item is Notification =>
            typeof (item as Notification | null)?.uri === 'string' && typeof (item as Notification).indexedAt === 'string',
        );
        seen.push(...items);
        page = str(answer?.cursor);
        // newest first: once a page reaches the kept cursor, the rest was seen before
        if (page === null || items.length === 0 || (since !== null && items.some((item) => item.indexedAt < since))) break;
      }
      // LOOKBACK_MS before the cursor is read again (late-indexed notifications sort behind it): stored once by source
      const fresh = seen.filter((item) => since === null || item.indexedAt >= since);
      const newest = fresh.reduce<string | null>((high, item) => (high === null || item.indexedAt > high ? item.indexedAt : high), cursor);
      const responses: SiloResponse[] = [];
      for (const item of fresh.sort((a, b) => (a.indexedAt < b.indexedAt ? -1 : a.indexedAt > b.indexedAt ? 1 : 0))) {
        const response = responseOf(item, self);
        if (response !== null) responses.push(response);
      }
      return { responses, cursor: newest };
    },

    async responders(copyId, kind) {
      const [nsid, list] = kind === 'like' ? ['app.bsky.feed.getLikes', 'likes'] : ['app.bsky.feed.getRepostedBy', 'repostedBy'];
      const dids = new Set<string>();
      let page: string | null = null;
      for (let count = 0; count < ACCOUNT_PAGES; count += 1) {
        const params: Record<string, string> = { uri: copyId, limit: '100' };
        if (page !== null) params.cursor = page;
        const answer: Record<string, unknown> | undefined = await xrpc.call('GET', nsid, { params });
        const items = Array.isArray(answer?.[list]) ? (answer[list] as unknown[]) : [];
        for (const item of items) {
          // getLikes: {actor: profileView}; getRepostedBy: profileView
          const did = kind === 'like' ? (item as { actor?: ProfileView } | null)?.actor?.did : (item as ProfileView | null)?.did;
          if (typeof did === 'string') dids.add(did);
        }
        page = str(answer?.cursor);
        if (page === null || items.length === 0) break;
      }
      return dids;
    },

    async responseExists(siloId) {
      const answer = await xrpc.call<{ posts?: unknown } | undefined>('GET', 'app.bsky.feed.getPosts', { params: { uris: [siloId] } });
      return Array.isArray(answer?.posts) && answer.posts.some((post) => (post as { uri?: unknown } | null)?.uri === siloId);
    },
  };
}
