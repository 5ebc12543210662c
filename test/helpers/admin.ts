/**
 * Admin page test helpers: an app with local media in a temp dir, signed-in
 * users, form posts with the page's CSRF token, bearer tokens, a hand-built
 * PNG upload and a snapshot of everything an admin form can change.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { DialectName } from '../../src/storage/connect.js';
import { buildTestApp, CookieJar, form, hiddenField, type TestApp } from './app.js';
import { sessionFor, testUsers } from './users.js';

export const ADMIN = '/indieweb/admin';
export const BASE_URL = 'http://indiestack.test';
/** Every admin page (GET). */
export const ADMIN_PAGES = ['/profile/', '/apps/', '/webmentions/', '/media/', '/setup/', '/account/'] as const;

export const PNG_1X1 = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3d4b1a50000000049454e44ae426082',
  'hex',
);

export interface AdminTestApp extends TestApp {
  readonly mediaDir: string;
}

/** A standalone app whose local media storage lives in a fresh temp dir (removed on close). */
export async function buildAdminApp(env: Record<string, string> = {}, options: { dialect?: DialectName } = {}): Promise<AdminTestApp> {
  const mediaDir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-admin-media-'));
  const t = await buildTestApp({ env: { INDIEWEB_MEDIA_DIR: mediaDir, ...env }, ...options });
  return {
    ...t,
    mediaDir,
    async close() {
      await t.close();
      rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}

/** Adds a user (profile https://NAME.example/) and signs them in. */
export async function addUser(
  t: TestApp,
  name: string,
  password = `${name} password 1`,
): Promise<{ user: HostUser; jar: CookieJar; password: string }> {
  if (t.app.indieweb.users === null) throw new Error('standalone accounts expected');
  const users = testUsers(t);
  const record = (await users.findByName(name)) ?? (await users.addUser({ name, me: [`https://${name}.example/`], password }));
  const jar = await sessionFor(t, record, password);
  return { user: { id: record.id, name: record.name, me: record.me, isActive: record.isActive }, jar, password };
}

export async function userNamed(t: TestApp, name: string): Promise<HostUser> {
  const record = await t.app.indieweb.users?.findByName(name);
  if (record === undefined || record === null) throw new Error(`no user ${name}`);
  return { id: record.id, name: record.name, me: record.me, isActive: record.isActive };
}

/** GET an admin page (path below /indieweb/admin) as the browser of `jar`. */
export async function getAdmin(t: TestApp, jar: CookieJar, pagePath: string): Promise<LightMyRequestResponse> {
  const response = await t.app.inject({ method: 'GET', url: `${ADMIN}${pagePath}`, headers: { cookie: jar.header() } });
  jar.storeFrom(response);
  return response;
}

/** POST a form to an admin path exactly as given (no CSRF token added). */
export async function postAdmin(
  t: TestApp,
  jar: CookieJar,
  postPath: string,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const response = await t.app.inject({
    method: 'POST',
    url: `${ADMIN}${postPath}`,
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: form(fields),
  });
  jar.storeFrom(response);
  return response;
}

/** The CSRF token of a page of ours. */
export const csrfOf = (page: LightMyRequestResponse): string => hiddenField(page.body, '_csrf');

/** Loads `pagePath` for its CSRF token, then posts `fields` with it to `postPath`. */
export async function submitAdmin(
  t: TestApp,
  jar: CookieJar,
  pagePath: string,
  postPath: string,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const page = await getAdmin(t, jar, pagePath);
  if (page.statusCode !== 200) throw new Error(`${pagePath} answered ${page.statusCode}`);
  return postAdmin(t, jar, postPath, { _csrf: csrfOf(page), ...fields });
}

/** Issues a bearer token straight through the token service. */
export async function issueToken(
  t: TestApp,
  user: HostUser,
  options: { clientId?: string; scope?: string; expiresIn?: number | null } = {},
): Promise<{ token: string; id: string }> {
  const issued = await t.app.indieweb.tokens.issue({
    userId: user.id,
    clientId: options.clientId ?? 'https://app.example/',
    me: user.me[0] ?? `https://${user.name}.example/`,
    scope: options.scope ?? 'create update',
    expiresIn: options.expiresIn === undefined ? 86_400 : options.expiresIn,
  });
  return { token: issued.token, id: issued.record.id };
}

/** GET /indieweb/token/ with the bearer token: 200 while it works, 401 once revoked. */
export function verifyToken(t: TestApp, token: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'GET',
    url: '/indieweb/token/',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
}

/** POST /indieweb/media/ with one `file` part, multipart built by hand. */
export function uploadFile(
  t: TestApp,
  token: string,
  content: Uint8Array = PNG_1X1,
  filename = 'pixel.png',
  type = 'image/png',
): Promise<LightMyRequestResponse> {
  const boundary = `----indiestack-admin-${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
      'utf8',
    ),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'),
  ]);
  return t.app.inject({
    method: 'POST',
    url: '/indieweb/media/',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: body,
  });
}

/** Everything an admin form can change: users (password, session epoch), tokens, webmentions, media, profiles, stored files. */
export async function snapshot(t: AdminTestApp): Promise<unknown> {
  const { db } = t.database;
  return {
    users: await db.selectFrom('indieweb_user').selectAll().orderBy('id').execute(),
    tokens: await db.selectFrom('indieweb_token').selectAll().orderBy('id').execute(),
    webmentions: await db.selectFrom('indieweb_webmention').selectAll().orderBy('id').execute(),
    media: await db.selectFrom('indieweb_media').selectAll().orderBy('id').execute(),
    profiles: await db.selectFrom('indieweb_profile').selectAll().orderBy('user_id').execute(),
    files: readdirSync(t.mediaDir, { recursive: true }).map(String).sort(),
  };
}

/** The text of the element opened by `open` up to `close`, unescaped (for textareas). */
export function textBetween(body: string, open: string, close: string): string | null {
  const start = body.indexOf(open);
  if (start === -1) return null;
  const end = body.indexOf(close, start + open.length);
  if (end === -1) return null;
  return unescapeHtml(body.slice(start + open.length, end));
}

export function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** How a page shows an instant: to the minute in UTC, inside `<time>` with the exact ISO value. */
export function shownTime(iso: string): string {
  return `<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}
