/**
 * The Mastodon client of the syndication feature: one target (an account on
 * one instance, with its access token) speaking Mastodon's REST API.
 * Statuses go out with an `Idempotency-Key` (a retry gets the same status
 * back), photos through `POST /api/v2/media` with their alt text (waiting for
 * `GET /api/v1/media/:id` to answer 200 when the upload answered 202), replies,
 * likes and reposts of a post the instance knows (on it, or found by search
 * with `resolve=true`) natively as `in_reply_to_id`, favourite and reblog.
 * Network errors, 5xx and 429 are transient (after `Retry-After`, else
 * `X-RateLimit-Reset`); other 4xx are final.
 * @see https://docs.joinmastodon.org/methods/statuses/
 * @see https://docs.joinmastodon.org/methods/media/
 * @see https://docs.joinmastodon.org/api/rate-limits/
 * @module
 */
import LinkHeader from 'http-link-header';
import { fitWithin } from '../../media/photo-fit.js';
import {
  SyndicationError,
  type BackfeedClient,
  type SiloResponse,
  type SyndicatedCopy,
  type SyndicationClient,
  type SyndicationPhoto,
  type SyndicationPost,
} from '../client.js';
import { htmlToText } from '../post.js';
import { DEFAULT_LIMITS, statusText, type StatusLimits } from './text.js';

export interface MastodonTarget {
  /** The instance's origin, e.g. `https://mastodon.example`. */
  readonly instanceUrl: string;
  readonly accessToken: string;
}

export interface MastodonClientOptions {
  /** @defaultValue the global fetch */
  readonly fetch?: typeof fetch;
  /** Time one request may take. @defaultValue 30 000 */
  readonly timeoutMs?: number;
  /** Pause between polls of unfinished media. @defaultValue 1000 */
  readonly mediaPollMs?: number;
  /** Polls of unfinished media before giving up for now (transient). @defaultValue 60 */
  readonly mediaPolls?: number;
}

interface InstanceLimits extends StatusLimits {
  readonly maxMedia: number;
  readonly imageBytes: number;
  readonly imagePixels: number;
}

interface Status {
  readonly id: string;
  readonly url?: string | null;
  readonly uri: string;
  readonly media_attachments?: readonly { readonly id: string }[];
  readonly reblog?: Status | null;
}

const FAVOURITE = 'favourite:';
const REBLOG = 'reblog:';

/** Milliseconds until the service said to come back: `Retry-After` (seconds or a date), else `X-RateLimit-Reset` (an ISO time). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter !== undefined && retryAfter !== '') {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const reset = headers.get('x-ratelimit-reset')?.trim();
  if (reset !== undefined && reset !== '') {
    const at = Date.parse(reset);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  return null;
}

function errorText(body: unknown): string {
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === 'string' ? `: ${error.replace(/\s+/g, ' ').slice(0, 200)}` : '';
}

export function createMastodonClient(target: MastodonTarget, options: MastodonClientOptions = {}): SyndicationClient {
  const origin = new URL(target.instanceUrl).origin;
  const host = new URL(origin).host.toLowerCase();
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pollMs = options.mediaPollMs ?? 1000;
  const polls = options.mediaPolls ?? 60;
  let limits: Promise<InstanceLimits> | null = null;

  async function call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    init: { json?: unknown; form?: FormData; headers?: Record<string, string>; okStatuses?: readonly number[] } = {},
  ): Promise<{ status: number; body: unknown; headers: Headers }> {
    const headers: Record<string, string> = { authorization: `Bearer ${target.accessToken}`, accept: 'application/json', ...init.headers };
    let body: string | FormData | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form !== undefined) body = init.form;
    let response: Response;
    try {
      response = await doFetch(`${origin}${path}`, {
        method,
        headers,
        body: body ?? null,
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new SyndicationError(`mastodon: ${host} cannot be reached`, { transient: true, cause: error });
    }
    const text = await response.text().catch(() => '');
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (response.ok || init.okStatuses?.includes(response.status))
      return { status: response.status, body: parsed, headers: response.headers };
    const what = `mastodon: ${method} ${path.split('?')[0]} answered ${response.status}${errorText(parsed)}`;
    if (response.status === 429 || response.status >= 500 || response.status === 408)
      throw new SyndicationError(what, { transient: true, retryAfterMs: retryAfterMs(response.headers) });
    if (response.status === 401 || response.status === 403)
      throw new SyndicationError(`mastodon: ${host} refused the access token (${response.status})${errorText(parsed)}`, {
        transient: false,
      });
    throw new SyndicationError(what, { transient: false });
  }

  function instanceLimits(): Promise<InstanceLimits> {
    limits ??= call('GET', '/api/v2/instance')
      .then(({ body }) => {
        const configuration = (body as { configuration?: Record<string, Record<string, unknown> | undefined> } | null)?.configuration;
        const positive = (value: unknown, fallback: number) =>
          typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
        return {
          maxCharacters: positive(configuration?.statuses?.max_characters, DEFAULT_LIMITS.maxCharacters),
          urlLength: positive(configuration?.statuses?.characters_reserved_per_url, DEFAULT_LIMITS.urlLength),
          maxMedia: positive(configuration?.statuses?.max_media_attachments, 4),
          imageBytes: positive(configuration?.media_attachments?.image_size_limit, 16 * 1024 * 1024),
          imagePixels: positive(configuration?.media_attachments?.image_matrix_limit, 8_294_400),
        };
      })
      .catch((error: unknown) => {
        limits = null;
        throw error;
      });
    return limits;
  }

  function sameInstance(url: string): boolean {
    try {
      return new URL(url).host.toLowerCase() === host;
    } catch {
      return false;
    }
  }

  /** The instance's id for the post at `url`: on this instance, or found by its search (resolve=true); null when it knows none. */
  async function resolveStatus(url: string): Promise<Status | null> {
    const query = new URLSearchParams({ q: url, type: 'statuses', resolve: 'true', limit: '1' });
    const { body } = await call('GET', `/api/v2/search?${query.toString()}`);
    const statuses = (body as { statuses?: unknown } | null)?.statuses;
    const first = Array.isArray(statuses) ? (statuses[0] as Status | undefined) : undefined;
    return first !== undefined && typeof first.id === 'string' ? first : null;
  }

  async function uploadPhoto(photo: SyndicationPhoto, instance: InstanceLimits): Promise<string | null> {
    const read = await photo.read();
    if (read === null) return null;
    let fitted: { bytes: Buffer; mediaType: string };
    try {
      fitted = await fitWithin(read.bytes, { maxBytes: instance.imageBytes, maxPixels: instance.imagePixels });
    } catch {
      // not a photo we can size: the post goes without it
      return null;
    }
    const form = new FormData();
    form.set(
      'file',
      new Blob([new Uint8Array(fitted.bytes)], { type: fitted.mediaType }),
      fitted.mediaType === 'image/png' ? 'photo.png' : 'photo.jpg',
    );
    if (photo.alt !== '') form.set('description', photo.alt.slice(0, 1500));
    const { status, body } = await call('POST', '/api/v2/media', { form });
    const media = body as { id?: unknown; url?: unknown } | null;
    if (typeof media?.id !== 'string') throw new SyndicationError('mastodon: the media upload answered no id', { transient: true });
    if (status === 200 && media.url !== null) return media.id;
    // 202: processed in the background; a status naming it before it is done gets 422
    for (let poll = 0; poll < polls; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const check = await call('GET', `/api/v1/media/${encodeURIComponent(media.id)}`, { okStatuses: [206] });
      if (check.status === 200) return media.id;
    }
    throw new SyndicationError('mastodon: an uploaded photo is still being processed', { transient: true, retryAfterMs: 10_000 });
  }

  const copyOf = (status: Status): SyndicatedCopy => ({ id: status.id, url: status.url ?? status.uri });

  let ownId: Promise<string> | null = null;
  function ownAccountId(): Promise<string> {
    ownId ??= call('GET', '/api/v1/accounts/verify_credentials')
      .then(({ body }) => {
        const id = (body as { id?: unknown } | null)?.id;
        if (typeof id !== 'string') throw new SyndicationError('mastodon: verify_credentials answered no account', { transient: true });
        return id;
      })
      .catch((error: unknown) => {
        ownId = null;
        throw error;
      });
    return ownId;
  }

  const backfeed: BackfeedClient = {
    async responses(cursor) {
      const self = await ownAccountId();
      const seen: Notification[] = [];
      let maxId: string | null = null;
      // newest first: page back (max_id) until since_id is reached, at most NOTIFICATION_PAGES pages
      for (let page = 0; page < NOTIFICATION_PAGES; page += 1) {
        const query = new URLSearchParams({ limit: String(NOTIFICATION_LIMIT) });
        for (const type of ['mention', 'favourite', 'reblog']) query.append('types[]', type);
        if (cursor !== null) query.set('since_id', cursor);
        if (maxId !== null) query.set('max_id', maxId);
        const { body } = await call('GET', `/api/v1/notifications?${query.toString()}`);
        const items = (Array.isArray(body) ? body : []).filter(
          (item): item is Notification => typeof (item as Notification | null)?.id === 'string',
        );
        seen.push(...items);
        if (items.length < NOTIFICATION_LIMIT) break;
        maxId = items.reduce((low, item) => (idBefore(item.id, low) ? item.id : low), items[0]!.id);
      }
      const newest = seen.reduce<string | null>((high, item) => (high === null || idBefore(high, item.id) ? item.id : high), cursor);
      const responses: SiloResponse[] = [];
      for (const item of seen.sort((a, b) => (idBefore(a.id, b.id) ? -1 : idBefore(b.id, a.id) ? 1 : 0))) {
        const response = responseOf(item, self);
        if (response !== null) responses.push(response);
      }
      return { responses, cursor: newest };
    },

    async responders(copyId, kind) {
      const ids = new Set<string>();
      let path: string | null =
        `/api/v1/statuses/${encodeURIComponent(copyId)}/${kind === 'like' ? 'favourited_by' : 'reblogged_by'}?limit=${ACCOUNT_LIMIT}`;
      for (let page = 0; page < ACCOUNT_PAGES && path !== null; page += 1) {
        const { status, body, headers } = await call('GET', path, { okStatuses: [404] });
        if (status === 404) return null;
        for (const account of Array.isArray(body) ? body : []) {
          const id = (account as { id?: unknown } | null)?.id;
          if (typeof id === 'string') ids.add(id);
        }
        path = nextPath(headers.get('link'));
      }
      return ids;
    },

    async responseExists(siloId) {
      const { status } = await call('GET', `/api/v1/statuses/${encodeURIComponent(siloId)}`, { okStatuses: [404] });
      return status !== 404;
    },
  };

  /** The next page of a `Link` header, as a path on this instance; null when there is none (or it points elsewhere). */
  function nextPath(link: string | null): string | null {
    if (link === null) return null;
    let next: string | undefined;
    try {
      next = LinkHeader.parse(link).rel('next')[0]?.uri;
    } catch {
      return null;
    }
    if (next === undefined) return null;
    try {
      const url = new URL(next);
      return url.origin === origin ? `${url.pathname}${url.search}` : null;
    } catch {
      return null;
    }
  }

  return {
    async verify() {
      const { body } = await call('GET', '/api/v1/accounts/verify_credentials');
      const acct = (body as { acct?: unknown; username?: unknown } | null)?.acct ?? (body as { username?: unknown } | null)?.username;
      if (typeof acct !== 'string' || acct === '')
        throw new SyndicationError('mastodon: verify_credentials answered no account', { transient: false });
      return { name: acct.includes('@') ? `@${acct}` : `@${acct}@${host}` };
    },

    async publish(post, key, onCreated) {
      const silo = post.likeOf ?? post.repostOf;
      if (silo !== null) {
        const original = await resolveStatus(silo);
        if (original === null) throw new SyndicationError(`mastodon: ${host} knows no post at ${silo.slice(0, 200)}`, { transient: false });
        const like = post.likeOf !== null;
        // favourite and reblog are idempotent on Mastodon: a retry changes nothing
        await call('POST', `/api/v1/statuses/${encodeURIComponent(original.id)}/${like ? 'favourite' : 'reblog'}`, {
          headers: { 'idempotency-key': key },
        });
        const copy = { id: `${like ? FAVOURITE : REBLOG}${original.id}`, url: original.url ?? original.uri };
        await onCreated?.(copy);
        return copy;
      }
      const instance = await instanceLimits();
      let inReplyToId: string | null = null;
      if (post.inReplyTo !== null) inReplyToId = (await resolveStatus(post.inReplyTo))?.id ?? null;
      const mediaIds: string[] = [];
      for (const photo of post.photos.slice(0, instance.maxMedia)) {
        const id = await uploadPhoto(photo, instance);
        if (id !== null) mediaIds.push(id);
      }
      const text = statusText(post, instance);
      if (text === '' && mediaIds.length === 0)
        throw new SyndicationError('mastodon: nothing to post (no text, no photo)', { transient: false });
      const { body } = await call('POST', '/api/v1/statuses', {
        json: {
          status: text,
          ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}),
          ...(inReplyToId !== null ? { in_reply_to_id: inReplyToId } : {}),
        },
        headers: { 'idempotency-key': key },
      });
      const status = body as Status | null;
      if (typeof status?.id !== 'string') throw new SyndicationError('mastodon: the new status has no id', { transient: true });
      const copy = copyOf(status);
      await onCreated?.(copy);
      return copy;
    },

    async update(post, copy) {
      if (copy.id.startsWith(FAVOURITE) || copy.id.startsWith(REBLOG)) return;
      const instance = await instanceLimits();
      const id = encodeURIComponent(copy.id);
      // the photos already attached stay: an edit that names none would drop them
      const { body } = await call('GET', `/api/v1/statuses/${id}`);
      const mediaIds = ((body as Status | null)?.media_attachments ?? []).map((media) => media.id);
      await call('PUT', `/api/v1/statuses/${id}`, {
        json: { status: statusText(post, instance), ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}) },
      });
    },

    async remove(copy) {
      const [path, method] = copy.id.startsWith(FAVOURITE)
        ? [`/api/v1/statuses/${encodeURIComponent(copy.id.slice(FAVOURITE.length))}/unfavourite`, 'POST' as const]
        : copy.id.startsWith(REBLOG)
          ? [`/api/v1/statuses/${encodeURIComponent(copy.id.slice(REBLOG.length))}/unreblog`, 'POST' as const]
          : [`/api/v1/statuses/${encodeURIComponent(copy.id)}`, 'DELETE' as const];
      // a copy already gone counts as deleted
      await call(method, path, { okStatuses: [404] });
    },

    isOnService: sameInstance,
    backfeed,
  };
}

/** Notifications asked for per page, and pages per poll (Mastodon answers at most 80, 40 by default). */
const NOTIFICATION_LIMIT = 40;
const NOTIFICATION_PAGES = 5;
/** Accounts per page of favourited_by / reblogged_by, and pages per copy. */
const ACCOUNT_LIMIT = 80;
const ACCOUNT_PAGES = 5;

interface Account {
  readonly id: string;
  readonly acct?: string;
  readonly username?: string;
  readonly display_name?: string;
  readonly url?: string | null;
  readonly avatar?: string | null;
}

interface Notification {
  readonly id: string;
  readonly type: string;
  readonly created_at?: string;
  readonly account?: Account;
  readonly status?: (Status & { in_reply_to_id?: string | null; content?: string; created_at?: string; account?: Account }) | null;
}

/** Whether Mastodon id `a` is older than `b`: ids are numbers in strings (snowflakes), longer is newer. */
export function idBefore(a: string, b: string): boolean {
  return a.length === b.length ? a < b : a.length < b.length;
}

/** A notification as a response on a copy; null for anything else (the user's own, a mention that replies to nothing). */
function responseOf(item: Notification, self: string): SiloResponse | null {
  const account = item.account;
  const status = item.status;
  if (account === undefined || typeof account.id !== 'string' || account.id === self || status == null) return null;
  const author = {
    id: account.id,
    name:
      account.display_name !== undefined && account.display_name !== '' ? account.display_name : (account.acct ?? account.username ?? null),
    url: account.url ?? null,
    photo: account.avatar ?? null,
  };
  if (item.type === 'favourite' || item.type === 'reblog')
    return {
      kind: item.type === 'favourite' ? 'like' : 'repost',
      copyId: status.id,
      siloId: account.id,
      url: null,
      author,
      contentHtml: null,
      contentText: null,
      published: item.created_at ?? null,
    };
  if (item.type !== 'mention' || typeof status.in_reply_to_id !== 'string' || status.account?.id === self) return null;
  const html = typeof status.content === 'string' ? status.content : '';
  return {
    kind: 'reply',
    copyId: status.in_reply_to_id,
    siloId: status.id,
    url: status.url ?? status.uri,
    author,
    contentHtml: html,
    contentText: htmlToText(html),
    published: status.created_at ?? item.created_at ?? null,
  };
}
