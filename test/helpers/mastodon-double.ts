/**
 * A Mastodon API double: a real HTTP server on loopback that answers the part
 * of Mastodon's REST API the syndication feature uses, as Mastodon's API
 * documentation describes it — accounts/verify_credentials, instance v2
 * (configuration.statuses, media_attachments), statuses (create with
 * Idempotency-Key, GET, PUT edits, DELETE, favourite, reblog and their undo),
 * media v2 with background processing (202, `url: null`, then
 * `GET /api/v1/media/:id` 206 until 200), search v2 (`resolve=true` finds
 * remote posts), notifications (types[], since_id, max_id, limit, the `Link`
 * header; made by other accounts' replies, favourites and reblogs, which
 * tests make with {@link MastodonDouble.reply}, `favourite`, `reblog`),
 * favourited_by / reblogged_by, accounts/:id, rate-limit headers and the error shape
 * `{ "error": … }`, 401/404/422/429/503. It is checked against the real
 * `masto` client (test/syndication/mastodon-double.test.ts) so it cannot
 * drift from the API.
 * @see https://docs.joinmastodon.org/methods/statuses/
 * @see https://docs.joinmastodon.org/methods/media/
 * @see https://docs.joinmastodon.org/methods/instance/
 * @see https://docs.joinmastodon.org/methods/search/
 * @see https://docs.joinmastodon.org/api/rate-limits/
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DoubleStatus {
  id: string;
  uri: string;
  url: string;
  text: string;
  created_at: string;
  edited_at: string | null;
  edits: number;
  in_reply_to_id: string | null;
  media_ids: string[];
  favourited: boolean;
  reblogged: boolean;
  /** A post of another account (made with {@link MastodonDouble.addStatus}), not the user's own. */
  foreign: boolean;
  /** Known only after a search with resolve=true. */
  remote: boolean;
  deleted: boolean;
  idempotencyKey: string | null;
  /** The author of a reply made with {@link MastodonDouble.reply}. */
  accountId?: string;
  /** Who favourited / reblogged it (other accounts' ids). */
  favouritedBy?: string[];
  rebloggedBy?: string[];
}

export interface DoubleAccount {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  url: string;
  avatar: string;
}

export interface DoubleNotification {
  id: string;
  type: 'mention' | 'favourite' | 'reblog';
  created_at: string;
  accountId: string;
  statusId: string;
}

export interface DoubleMedia {
  id: string;
  description: string | null;
  type: string;
  size: number;
  /** GETs left that answer 206 before 200. */
  pending: number;
}

export interface Fault {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

export interface MastodonDoubleOptions {
  readonly token?: string;
  readonly username?: string;
  readonly maxCharacters?: number;
  readonly urlLength?: number;
  /** GET /api/v1/media/:id answers 206 this many times before 200; 0: the upload answers 200 at once. @defaultValue 2 */
  readonly mediaPolls?: number;
  /** Requests allowed per window before 429. @defaultValue 300 */
  readonly rateLimit?: number;
}

export interface MastodonDouble {
  readonly origin: string;
  readonly token: string;
  readonly statuses: Map<string, DoubleStatus>;
  readonly media: Map<string, DoubleMedia>;
  /** Every request: method, path (without query), headers. */
  readonly requests: { method: string; path: string; idempotencyKey: string | null }[];
  /** The user's own statuses that are not deleted (a reblog wrapper is not one). */
  ownStatuses(): DoubleStatus[];
  /** The next requests answer these faults, in order (matching `path` when given). */
  fail(...faults: (Fault & { path?: string })[]): void;
  /** A post by someone else: on this instance (`remote: false`) or elsewhere, found only by a search with resolve=true. */
  addStatus(url: string, options?: { remote?: boolean }): DoubleStatus;
  /** Pauses every answer to POST /api/v1/statuses by `ms` (after the status exists): for crash tests. */
  delayCreates(ms: number): void;
  readonly notifications: DoubleNotification[];
  /** Another account (on this instance or a remote one); the user's own is `1`. */
  addAccount(username: string, options?: { host?: string; displayName?: string }): DoubleAccount;
  /** `account` replies to status `inReplyToId`: a new status, and a mention notification for the user when it replies to theirs. */
  reply(account: DoubleAccount | '1', inReplyToId: string, text: string): DoubleStatus;
  favourite(account: DoubleAccount, statusId: string): void;
  unfavourite(account: DoubleAccount, statusId: string): void;
  reblog(account: DoubleAccount, statusId: string): void;
  unreblog(account: DoubleAccount, statusId: string): void;
  /** A notification as Mastodon would send it (by any account, the user's own too: for tests of what is left out). */
  notify(type: DoubleNotification['type'], accountId: string, statusId: string): DoubleNotification;
  /** Deletes any status (a reply by someone else too). */
  deleteStatus(id: string): void;
  /** Pauses every answer to GET /api/v1/notifications by `ms`, counting how many are in flight at once: for lease tests. */
  delayNotifications(ms: number): void;
  /** The most GET /api/v1/notifications requests that were in flight at once. */
  notificationsInFlightMax(): number;
  close(): Promise<void>;
}

const NOW = () => new Date().toISOString();
const SEGMENTER = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Mastodon's counting, written from its documentation (not the feature's module): graphemes, each URL as urlLength, @user@domain as @user. */
function lengthOf(text: string, urlLength: number): number {
  let urls = 0;
  const rest = text
    .replace(/https?:\/\/\S+/g, () => {
      urls += 1;
      return '';
    })
    .replace(/(@[\w.-]+)@[\w-]+(\.[\w-]+)+/g, '$1');
  return [...SEGMENTER.segment(rest)].length + urls * urlLength;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The request's parameters: JSON, a form or multipart (files as Blobs). */
async function paramsOf(request: IncomingMessage, body: Buffer): Promise<Record<string, unknown>> {
  const type = request.headers['content-type'] ?? '';
  if (body.length === 0) return {};
  if (type.startsWith('application/json')) return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': type } }).formData();
    const out: Record<string, unknown> = {};
    for (const [name, value] of form.entries()) {
      if (name.endsWith('[]')) ((out[name.slice(0, -2)] ??= []) as unknown[]).push(value);
      else out[name] = value;
    }
    return out;
  }
  return {};
}

export async function startMastodonDouble(options: MastodonDoubleOptions = {}): Promise<MastodonDouble> {
  const token = options.token ?? 'double-access-token';
  const username = options.username ?? 'alice';
  const maxCharacters = options.maxCharacters ?? 500;
  const urlLength = options.urlLength ?? 23;
  const mediaPolls = options.mediaPolls ?? 2;
  const rateLimit = options.rateLimit ?? 300;
  const statuses = new Map<string, DoubleStatus>();
  const media = new Map<string, DoubleMedia>();
  const idempotency = new Map<string, string>();
  const requests: MastodonDouble['requests'] = [];
  const faults: (Fault & { path?: string })[] = [];
  let createDelay = 0;
  let notificationDelay = 0;
  let inFlight = 0;
  let inFlightMax = 0;
  const accounts = new Map<string, DoubleAccount>();
  const notifications: DoubleNotification[] = [];
  let nextId = 100_000;
  let used = 0;
  let windowReset = Date.now() + 300_000;
  let origin = '';
  const newId = () => String((nextId += 1));

  const account = () => ({
    id: '1',
    username,
    acct: username,
    display_name: username,
    locked: false,
    bot: false,
    discoverable: true,
    group: false,
    created_at: '2024-01-01T00:00:00.000Z',
    note: '',
    url: `${origin}/@${username}`,
    uri: `${origin}/users/${username}`,
    avatar: `${origin}/avatars/original/missing.png`,
    avatar_static: `${origin}/avatars/original/missing.png`,
    header: `${origin}/headers/original/missing.png`,
    header_static: `${origin}/headers/original/missing.png`,
    followers_count: 0,
    following_count: 0,
    statuses_count: [...statuses.values()].filter((s) => !s.foreign && !s.deleted).length,
    last_status_at: null,
    emojis: [],
    fields: [],
  });
  const foreignAccount = () => ({
    ...account(),
    id: '2',
    username: 'bob',
    acct: 'bob@elsewhere.example',
    url: 'https://elsewhere.example/@bob',
  });

  const otherAccountJson = (id: string) => {
    const other = accounts.get(id);
    if (other === undefined) return foreignAccount();
    return { ...account(), ...other, uri: other.url, avatar_static: other.avatar, statuses_count: 1 };
  };
  const accountJson = (id: string) => (id === '1' ? account() : otherAccountJson(id));

  const mediaJson = (item: DoubleMedia) => ({
    id: item.id,
    type: 'image',
    url: item.pending > 0 ? null : `${origin}/system/media/${item.id}.jpg`,
    preview_url: `${origin}/system/media/${item.id}-small.jpg`,
    remote_url: null,
    preview_remote_url: null,
    text_url: null,
    meta: {},
    description: item.description,
    blurhash: null,
  });

  const statusJson = (status: DoubleStatus): Record<string, unknown> => ({
    id: status.id,
    uri: status.uri,
    url: status.url,
    created_at: status.created_at,
    edited_at: status.edited_at,
    account: status.accountId !== undefined ? accountJson(status.accountId) : status.foreign ? foreignAccount() : account(),
    content: `<p>${escapeHtml(status.text)}</p>`,
    visibility: 'public',
    sensitive: false,
    spoiler_text: '',
    media_attachments: status.media_ids.map((id) => mediaJson(media.get(id)!)),
    application: null,
    mentions: [],
    tags: [],
    emojis: [],
    reblogs_count: (status.reblogged ? 1 : 0) + (status.rebloggedBy?.length ?? 0),
    favourites_count: (status.favourited ? 1 : 0) + (status.favouritedBy?.length ?? 0),
    replies_count: 0,
    in_reply_to_id: status.in_reply_to_id,
    in_reply_to_account_id: status.in_reply_to_id === null ? null : '2',
    reblog: null,
    poll: null,
    card: null,
    language: 'en',
    text: null,
    favourited: status.favourited,
    reblogged: status.reblogged,
    muted: false,
    bookmarked: false,
  });

  const instanceJson = () => ({
    domain: new URL(origin).host,
    title: 'Mastodon double',
    version: '4.3.0',
    source_url: 'https://github.com/mastodon/mastodon',
    description: 'A Mastodon API double for tests',
    usage: { users: { active_month: 1 } },
    thumbnail: { url: `${origin}/thumbnail.png` },
    languages: ['en'],
    configuration: {
      urls: { streaming: origin.replace(/^http/, 'ws'), status: null },
      accounts: { max_featured_tags: 10, max_pinned_statuses: 5 },
      statuses: { max_characters: maxCharacters, max_media_attachments: 4, characters_reserved_per_url: urlLength },
      media_attachments: {
        supported_mime_types: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
        image_size_limit: 16_777_216,
        image_matrix_limit: 33_177_600,
        video_size_limit: 103_809_024,
        video_frame_rate_limit: 120,
        video_matrix_limit: 8_294_400,
      },
      polls: { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2_629_746 },
      translation: { enabled: false },
    },
    registrations: { enabled: false, approval_required: false, message: null },
    contact: { email: 'admin@double.example', account: null },
    rules: [],
  });

  function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const reset = new Date(windowReset).toISOString();
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-ratelimit-limit': String(rateLimit),
      'x-ratelimit-remaining': String(Math.max(0, rateLimit - used)),
      'x-ratelimit-reset': reset,
      ...headers,
    });
    response.end(body === undefined ? '' : JSON.stringify(body));
  }

  const own = (id: string) => {
    const status = statuses.get(id);
    return status !== undefined && !status.deleted ? status : undefined;
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', origin);
    const path = url.pathname;
    const method = request.method ?? 'GET';
    const key = (request.headers['idempotency-key'] as string | undefined) ?? null;
    requests.push({ method, path, idempotencyKey: key });
    const body = await readBody(request);

    const faultAt = faults.findIndex((fault) => fault.path === undefined || fault.path === path);
    if (faultAt >= 0) {
      const [fault] = faults.splice(faultAt, 1);
      return send(response, fault!.status, fault!.body ?? { error: `Fault ${fault!.status}` }, fault!.headers);
    }
    if (path === '/api/v2/instance' && method === 'GET') return send(response, 200, instanceJson());
    if (request.headers.authorization !== `Bearer ${token}`) return send(response, 401, { error: 'The access token is invalid' });
    if (Date.now() > windowReset) {
      used = 0;
      windowReset = Date.now() + 300_000;
    }
    used += 1;
    if (used > rateLimit) return send(response, 429, { error: 'Too many requests' });

    let params: Record<string, unknown>;
    try {
      params = await paramsOf(request, body);
    } catch {
      return send(response, 400, { error: 'Malformed request body' });
    }
    const segments = path.split('/').filter(Boolean);

    if (path === '/api/v1/accounts/verify_credentials' && method === 'GET')
      return send(response, 200, { ...account(), source: { privacy: 'public', sensitive: false, language: 'en', note: '', fields: [] } });
    if (path === '/api/v1/notifications' && method === 'GET') {
      const types = url.searchParams.getAll('types[]');
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 40) || 40, 80);
      const since = url.searchParams.get('since_id');
      const max = url.searchParams.get('max_id');
      const newer = (a: string, b: string) => (a.length === b.length ? a > b : a.length > b.length);
      const found = notifications
        .filter(
          (n) =>
            (types.length === 0 || types.includes(n.type)) && (since === null || newer(n.id, since)) && (max === null || newer(max, n.id)),
        )
        .sort((a, b) => (newer(a.id, b.id) ? -1 : 1))
        .slice(0, limit);
      inFlight += 1;
      inFlightMax = Math.max(inFlightMax, inFlight);
      if (notificationDelay > 0) await new Promise((resolve) => setTimeout(resolve, notificationDelay));
      inFlight -= 1;
      const link =
        found.length === limit
          ? { link: `<${origin}/api/v1/notifications?max_id=${found[found.length - 1]!.id}&limit=${limit}>; rel="next"` }
          : undefined;
      return send(
        response,
        200,
        found.map((n) => ({
          id: n.id,
          type: n.type,
          created_at: n.created_at,
          account: accountJson(n.accountId),
          status: statusJson(statuses.get(n.statusId)!),
        })),
        link,
      );
    }
    if (segments[0] === 'api' && segments[1] === 'v1' && segments[2] === 'accounts' && segments.length === 4 && method === 'GET') {
      if (segments[3] !== '1' && !accounts.has(segments[3]!)) return send(response, 404, { error: 'Record not found' });
      return send(response, 200, accountJson(segments[3]!));
    }
    if (
      segments[0] === 'api' &&
      segments[1] === 'v1' &&
      segments[2] === 'statuses' &&
      (segments[4] === 'favourited_by' || segments[4] === 'reblogged_by') &&
      method === 'GET'
    ) {
      const status = own(segments[3]!);
      if (status === undefined) return send(response, 404, { error: 'Record not found' });
      const ids = (segments[4] === 'favourited_by' ? status.favouritedBy : status.rebloggedBy) ?? [];
      return send(response, 200, ids.map(accountJson));
    }

    if (path === '/api/v2/search' && method === 'GET') {
      const q = url.searchParams.get('q') ?? '';
      const resolve = url.searchParams.get('resolve') === 'true';
      const found = [...statuses.values()].filter((s) => !s.deleted && (s.url === q || s.uri === q) && (resolve || !s.remote));
      const type = url.searchParams.get('type');
      return send(response, 200, {
        accounts: [],
        statuses: type === null || type === 'statuses' ? found.map(statusJson) : [],
        hashtags: [],
      });
    }

    if (path === '/api/v2/media' && method === 'POST') {
      const file = params.file;
      if (!(file instanceof Blob)) return send(response, 422, { error: 'Validation failed: File must be present' });
      if (!/^image\/(jpeg|png|gif|webp)$/.test(file.type))
        return send(response, 422, { error: 'Validation failed: File has contents that are not what they are reported to be' });
      const item: DoubleMedia = {
        id: newId(),
        description: typeof params.description === 'string' ? params.description : null,
        type: file.type,
        size: file.size,
        pending: mediaPolls,
      };
      media.set(item.id, item);
      return send(response, mediaPolls > 0 ? 202 : 200, mediaJson(item));
    }
    if (segments[0] === 'api' && segments[1] === 'v1' && segments[2] === 'media' && segments.length === 4 && method === 'GET') {
      const item = media.get(segments[3]!);
      if (item === undefined) return send(response, 404, { error: 'Record not found' });
      if (item.pending > 0) {
        item.pending -= 1;
        return send(response, 206, mediaJson({ ...item, pending: 1 }));
      }
      return send(response, 200, mediaJson(item));
    }

    if (path === '/api/v1/statuses' && method === 'POST') {
      if (key !== null) {
        const known = idempotency.get(key);
        if (known !== undefined) return send(response, 200, statusJson(statuses.get(known)!));
      }
      const text = typeof params.status === 'string' ? params.status : '';
      const mediaIds = (Array.isArray(params.media_ids) ? params.media_ids : []).map(String);
      if (text.trim() === '' && mediaIds.length === 0) return send(response, 422, { error: "Validation failed: Text can't be blank" });
      if (lengthOf(text, urlLength) > maxCharacters)
        return send(response, 422, { error: `Validation failed: Text character limit of ${maxCharacters} exceeded` });
      if (mediaIds.length > 4)
        return send(response, 422, { error: 'Validation failed: Media attachments can not attach more than 4 files' });
      for (const id of mediaIds) {
        const item = media.get(id);
        if (item === undefined) return send(response, 422, { error: 'Validation failed: Media attachments are invalid' });
        if (item.pending > 0)
          return send(response, 422, { error: 'Cannot attach files that have not finished processing. Try again in a moment!' });
      }
      const replyTo = typeof params.in_reply_to_id === 'string' ? params.in_reply_to_id : null;
      if (replyTo !== null && own(replyTo) === undefined) return send(response, 404, { error: 'Record not found' });
      const id = newId();
      const status: DoubleStatus = {
        id,
        uri: `${origin}/users/${username}/statuses/${id}`,
        url: `${origin}/@${username}/${id}`,
        text,
        created_at: NOW(),
        edited_at: null,
        edits: 0,
        in_reply_to_id: replyTo,
        media_ids: mediaIds,
        favourited: false,
        reblogged: false,
        foreign: false,
        remote: false,
        deleted: false,
        idempotencyKey: key,
      };
      statuses.set(id, status);
      if (key !== null) idempotency.set(key, id);
      if (createDelay > 0) await new Promise((resolve) => setTimeout(resolve, createDelay));
      return send(response, 200, statusJson(status));
    }

    if (segments[0] === 'api' && segments[1] === 'v1' && segments[2] === 'statuses' && segments[3] !== undefined) {
      const status = own(segments[3]);
      if (status === undefined) return send(response, 404, { error: 'Record not found' });
      const action = segments[4];
      if (action === undefined && method === 'GET') return send(response, 200, statusJson(status));
      if (action === undefined && method === 'DELETE') {
        if (status.foreign) return send(response, 403, { error: 'This action is not allowed' });
        status.deleted = true;
        return send(response, 200, { ...statusJson(status), text: status.text });
      }
      if (action === undefined && method === 'PUT') {
        if (status.foreign) return send(response, 403, { error: 'This action is not allowed' });
        const text = typeof params.status === 'string' ? params.status : status.text;
        if (lengthOf(text, urlLength) > maxCharacters)
          return send(response, 422, { error: `Validation failed: Text character limit of ${maxCharacters} exceeded` });
        status.text = text;
        if (params.media_ids !== undefined) status.media_ids = (Array.isArray(params.media_ids) ? params.media_ids : []).map(String);
        status.edited_at = NOW();
        status.edits += 1;
        return send(response, 200, statusJson(status));
      }
      if (method === 'POST' && (action === 'favourite' || action === 'unfavourite')) {
        status.favourited = action === 'favourite';
        return send(response, 200, statusJson(status));
      }
      if (method === 'POST' && (action === 'reblog' || action === 'unreblog')) {
        status.reblogged = action === 'reblog';
        if (action === 'unreblog') return send(response, 200, statusJson(status));
        return send(response, 200, { ...statusJson(status), id: `${status.id}0`, reblog: statusJson(status), content: '' });
      }
    }
    return send(response, 404, { error: 'Record not found' });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, { error: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    token,
    statuses,
    media,
    requests,
    ownStatuses: () => [...statuses.values()].filter((s) => !s.foreign && !s.deleted),
    fail: (...added) => faults.push(...added),
    addStatus(url, addOptions = {}) {
      const id = newId();
      const status: DoubleStatus = {
        id,
        uri: url,
        url,
        text: 'a post by someone else',
        created_at: NOW(),
        edited_at: null,
        edits: 0,
        in_reply_to_id: null,
        media_ids: [],
        favourited: false,
        reblogged: false,
        foreign: true,
        remote: addOptions.remote ?? false,
        deleted: false,
        idempotencyKey: null,
      };
      statuses.set(id, status);
      return status;
    },
    delayCreates(ms) {
      createDelay = ms;
    },
    notifications,
    addAccount(name, accountOptions = {}) {
      const host = accountOptions.host ?? new URL(origin).host;
      const id = String(2000 + accounts.size);
      const made: DoubleAccount = {
        id,
        username: name,
        acct: host === new URL(origin).host ? name : `${name}@${host}`,
        display_name: accountOptions.displayName ?? name,
        url: host === new URL(origin).host ? `${origin}/@${name}` : `https://${host}/@${name}`,
        avatar: `${origin}/avatars/${name}.png`,
      };
      accounts.set(id, made);
      return made;
    },
    reply(who, inReplyToId, text) {
      const id = newId();
      const accountId = who === '1' ? '1' : who.id;
      const name = who === '1' ? username : who.username;
      const status: DoubleStatus = {
        id,
        uri: `${origin}/users/${name}/statuses/${id}`,
        url: `${origin}/@${name}/${id}`,
        text,
        created_at: NOW(),
        edited_at: null,
        edits: 0,
        in_reply_to_id: inReplyToId,
        media_ids: [],
        favourited: false,
        reblogged: false,
        foreign: accountId !== '1',
        remote: false,
        deleted: false,
        idempotencyKey: null,
        accountId,
      };
      statuses.set(id, status);
      const parent = statuses.get(inReplyToId);
      // Mastodon notifies of replies to one's statuses, never of one's own
      if (accountId !== '1' && parent !== undefined && !parent.foreign)
        notifications.push({ id: newId(), type: 'mention', created_at: NOW(), accountId, statusId: id });
      return status;
    },
    favourite(who, statusId) {
      const status = statuses.get(statusId)!;
      if ((status.favouritedBy ??= []).includes(who.id)) return;
      status.favouritedBy.push(who.id);
      notifications.push({ id: newId(), type: 'favourite', created_at: NOW(), accountId: who.id, statusId });
    },
    unfavourite(who, statusId) {
      const status = statuses.get(statusId)!;
      status.favouritedBy = (status.favouritedBy ?? []).filter((id) => id !== who.id);
    },
    reblog(who, statusId) {
      const status = statuses.get(statusId)!;
      if ((status.rebloggedBy ??= []).includes(who.id)) return;
      status.rebloggedBy.push(who.id);
      notifications.push({ id: newId(), type: 'reblog', created_at: NOW(), accountId: who.id, statusId });
    },
    unreblog(who, statusId) {
      const status = statuses.get(statusId)!;
      status.rebloggedBy = (status.rebloggedBy ?? []).filter((id) => id !== who.id);
    },
    notify(type, accountId, statusId) {
      const made: DoubleNotification = { id: newId(), type, created_at: NOW(), accountId, statusId };
      notifications.push(made);
      return made;
    },
    deleteStatus(id) {
      statuses.get(id)!.deleted = true;
    },
    delayNotifications(ms) {
      notificationDelay = ms;
    },
    notificationsInFlightMax: () => inFlightMax,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
