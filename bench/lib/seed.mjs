/**
 * Prepares a data dir: one account (through the CLI, as a person would),
 * one access token from `indiestack token issue`, and (written straight
 * into the SQLite file, which is how thousands are made in seconds)
 * extra access tokens and authorization codes; entries through the API.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { cannon } from './load.mjs';
import { cli, get } from './proc.mjs';

export const USER = 'alice';
export const ME = 'https://alice.example/';
export const CLIENT_ID = 'https://app.example/';
export const REDIRECT_URI = 'https://app.example/callback';

const sha256 = (value) => createHash('sha256').update(value, 'utf8').digest('base64url');
const sqliteFile = (dataDir) => path.join(dataDir, 'indiestack.sqlite');

/** Creates the account and returns a token with every scope the workloads need; `env` picks another database. */
export function createAccount(dataDir, env = {}) {
  cli(dataDir, ['user', 'add', USER, '--me', ME, '--password-stdin'], 'bench-password-0123456789\n', env);
  const out = cli(
    dataDir,
    ['token', 'issue', '--user', USER, '--client-id', CLIENT_ID, '--scope', 'create update delete media'],
    undefined,
    env,
  )
    .trim()
    .split('\n');
  return out[out.length - 1].trim();
}

function withDatabase(dataDir, work) {
  const db = new Database(sqliteFile(dataDir));
  try {
    db.pragma('busy_timeout = 5000');
    return work(db);
  } finally {
    db.close();
  }
}

function userId(db) {
  const row = db.prepare('select id from indieweb_user where name = ?').get(USER);
  if (row === undefined) throw new Error('bench account missing');
  return row.id;
}

/** Inserts `count` access tokens (distinct hashes); returns the secrets of `keep` of them, chosen at random. */
export function insertTokens(dataDir, count, keep) {
  return withDatabase(dataDir, (db) => {
    const owner = userId(db);
    const now = new Date();
    const expires = new Date(now.getTime() + 7 * 24 * 3600 * 1000).toISOString();
    const insert = db.prepare(
      'insert into indieweb_token (id, token_hash, user_id, client_id, me, scope, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const kept = [];
    const every = Math.max(1, Math.floor(count / keep));
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const token = randomBytes(32).toString('base64url');
        insert.run(
          randomBytes(9).toString('base64url'),
          sha256(token),
          owner,
          CLIENT_ID,
          ME,
          'create update media',
          now.toISOString(),
          expires,
        );
        if (i % every === 0 && kept.length < keep) kept.push(token);
      }
    })();
    return kept;
  });
}

/** Inserts `count` fresh authorization codes (scope create, no PKCE); returns the codes themselves. */
export function insertAuthCodes(dataDir, count) {
  return withDatabase(dataDir, (db) => {
    const owner = userId(db);
    const now = new Date();
    const expires = new Date(now.getTime() + 6 * 3600 * 1000).toISOString();
    const insert = db.prepare(
      'insert into indieweb_auth_code (code_hash, user_id, client_id, redirect_uri, me, scope, created_at, expires_at, consumed_at) values (?, ?, ?, ?, ?, ?, ?, ?, null)',
    );
    const codes = [];
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const code = randomBytes(32).toString('base64url');
        insert.run(sha256(code), owner, CLIENT_ID, REDIRECT_URI, ME, 'create', now.toISOString(), expires);
        codes.push(code);
      }
    })();
    return codes;
  });
}

/** Number of rows of a table (to check what the workloads did). */
export function countRows(dataDir, table) {
  return withDatabase(dataDir, (db) => db.prepare(`select count(*) as n from ${table}`).get().n);
}

/**
 * Queues `count` webmentions (pending record + verification job), the way
 * `POST /webmention/` leaves them, with sources on the local source server.
 */
export async function insertQueuedWebmentions(dataDir, count, { sourceBase, target, kind = 'post' }) {
  const { canonicalUrl } = await import(new URL('../../dist/webmention/canonical-url.js', import.meta.url).href);
  return withDatabase(dataDir, (db) => {
    const now = new Date().toISOString();
    const mention = db.prepare(
      "insert into indieweb_webmention (id, source, target, target_key, status, created_at, updated_at) values (?, ?, ?, ?, 'pending', ?, ?)",
    );
    const job = db.prepare(
      "insert into indieweb_job (id, kind, ref, run_at, attempts, created_at) values (?, 'webmention.verify', ?, ?, 0, ?)",
    );
    const targetKey = canonicalUrl(target);
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const id = randomBytes(18).toString('base64url');
        mention.run(id, `${sourceBase}/${kind}/${i}?target=${encodeURIComponent(target)}`, target, targetKey, now, now);
        job.run(randomBytes(9).toString('base64url'), id, now, now);
      }
    })();
  });
}

/** Webmentions by status. */
export function webmentionStatuses(dataDir) {
  return withDatabase(dataDir, (db) => {
    const counts = { pending: 0, verified: 0, failed: 0, spam: 0 };
    for (const row of db.prepare('select status, count(*) as n from indieweb_webmention group by status').all()) counts[row.status] = row.n;
    return counts;
  });
}

/**
 * Entries the server's entry search index has not taken yet (migrations 0021, 0022), asked as the server asks
 * (`dist/storage/search-index.js`), on its database: the data dir's SQLite file, or PostgreSQL at `url`. The server
 * indexes them while no entries are created.
 */
export async function entriesWaitingForSearch(dataDir, url) {
  const { createDatabase } = await import(new URL('../../dist/storage/connect.js', import.meta.url).href);
  const { entriesWaitingForSearch: waiting } = await import(new URL('../../dist/storage/search-index.js', import.meta.url).href);
  const handle = createDatabase(url === undefined ? { kind: 'sqlite', filename: sqliteFile(dataDir) } : { kind: 'postgres', url });
  try {
    return await waiting(handle);
  } finally {
    await handle.close();
  }
}

/**
 * `count` entries created through the API on a server without any (the in-memory handler has no other way in);
 * the seconds it took.
 */
export async function createEntries(server, token, count, connections = 32) {
  const started = Date.now();
  const result = await cannon({
    url: `${server.url}/indieweb/micropub/`,
    connections: Math.min(connections, count),
    amount: count,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: ['h-entry'],
          properties: { content: ['a stored entry for the growth benchmark'], category: ['bench'] },
        }),
      },
    ],
  });
  const total = JSON.parse((await get(`${server.url}/indieweb/micropub/?q=source&limit=1`, { authorization: `Bearer ${token}` })).body)
    .paging.total;
  if (total !== count)
    throw new Error(`wanted ${count} entries, the server lists ${total} (${result.non2xx} non-2xx, ${result.errors} errors)`);
  return (Date.now() - started) / 1000;
}

/** The URLs of the newest `count` entries (q=source). */
export async function entryUrls(server, token, count) {
  const answer = await get(`${server.url}/indieweb/micropub/?q=source&limit=${count}`, { authorization: `Bearer ${token}` });
  return JSON.parse(answer.body).items.map((item) => item.properties.url[0]);
}
