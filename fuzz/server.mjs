/**
 * The server under test: a real `indiestack serve` child process on a fresh
 * data directory, with a user, an access token and a signed-in session made
 * the way an operator and a browser make them (CLI and login form).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { health, request } from './http.mjs';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'indiestack.js');
export const USER = 'fuzz';
export const PASSWORD = 'fuzz password that is long enough';
export const MAIN_CLIENT = 'https://fuzz-main.example/';
const LOG_TAIL = 64 * 1024;

// servers still running when this process ends (an error, Ctrl-C) are killed with it, never left behind
const running = new Set();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

function cleanEnv(extra) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('INDIEWEB_')) env[name] = value;
  return { ...env, ...extra };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function runCli(args, { cwd, env, input = '' }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.end(input);
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`indiestack ${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

/** The resident set size of a process in bytes, from /proc (null where there is no /proc). */
export function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

class CookieJar {
  cookies = new Map();
  store(header) {
    if (header === undefined) return;
    for (const line of header.split(/,(?=\s*[A-Za-z0-9_.-]+=)/)) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

const hidden = (html, name) => {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  return match === null ? null : match[1].replace(/&amp;/g, '&');
};

/**
 * A server with its fixtures. `start()` spawns (or respawns, after a crash)
 * the process on the same data directory, so the credentials stay valid.
 */
export class ServerUnderTest {
  constructor({ quiet = false, handler = 'database' } = {}) {
    this.quiet = quiet;
    this.handler = handler;
    this.dataDir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-fuzz-data-'));
    this.child = null;
    this.logs = '';
    this.exits = [];
  }

  get pid() {
    return this.child?.pid ?? null;
  }

  get alive() {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start() {
    this.port ??= await freePort();
    this.base = `http://127.0.0.1:${this.port}`;
    this.env = cleanEnv({
      INDIEWEB_DATA_DIR: this.dataDir,
      INDIEWEB_BASE_URL: this.base,
      INDIEWEB_HOST: '127.0.0.1',
      INDIEWEB_PORT: String(this.port),
      INDIEWEB_LOG_LEVEL: 'warn',
      // both built-in handlers serve the entry pages and feeds (--handler); the database one by default
      INDIEWEB_MICROPUB_HANDLER: this.handler,
      INDIEWEB_METRICS_TOKEN: 'fuzz-metrics-token-fuzz-metrics-token-0123',
      // short timeouts, so a stalled request must be answered (408) or closed within the fuzzer's deadline
      INDIEWEB_HEADERS_TIMEOUT: '4',
      INDIEWEB_REQUEST_TIMEOUT: '6',
    });
    const child = spawn(process.execPath, [BIN, 'serve'], { cwd: this.dataDir, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    const keep = (chunk) => {
      this.logs = (this.logs + chunk.toString('utf8')).slice(-LOG_TAIL);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('exit', (code, signal) => this.exits.push({ code, signal, at: Date.now() }));
    for (let attempt = 0; attempt < 300; attempt++) {
      if (!this.alive) throw new Error(`server exited while starting:\n${this.logs}`);
      const answer = await health(this.port, 1_000).catch(() => null);
      if (answer?.status === 200) return;
      await sleep(50);
    }
    throw new Error('server did not answer /healthz');
  }

  /** The user, a token for every Micropub/media scope, a session, a CSRF token, an entry, a media file, a webmention. */
  async fixtures() {
    const cli = { cwd: this.dataDir, env: this.env };
    await runCli(['user', 'add', USER, '--me', `${this.base}/`, '--password-stdin'], { ...cli, input: `${PASSWORD}\n` });
    const issue = async (client) =>
      (
        await runCli(
          [
            'token',
            'issue',
            '--user',
            USER,
            '--client-id',
            client,
            '--scope',
            'create update delete undelete media profile email deploy',
            '--no-expiry',
          ],
          cli,
        )
      )
        .trimEnd()
        .split('\n')
        .at(-1);
    const token = await issue(MAIN_CLIENT);
    const spareToken = await issue('https://fuzz-spare.example/');
    const jar = new CookieJar();
    const page = await request(this.port, { path: '/indieweb/login/' });
    jar.store(page.headers['set-cookie']);
    const loginCsrf = hidden(page.body.toString('utf8'), '_csrf');
    const body = new URLSearchParams({ _csrf: loginCsrf, return_to: '/indieweb/', username: USER, password: PASSWORD }).toString();
    const signedIn = await request(this.port, {
      method: 'POST',
      path: '/indieweb/login/',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    if (signedIn.status !== 303) throw new Error(`sign-in failed: ${signedIn.status}`);
    jar.store(signedIn.headers['set-cookie']);
    const admin = await request(this.port, { path: '/indieweb/admin/profile/', headers: { cookie: jar.header() } });
    jar.store(admin.headers['set-cookie']);
    const csrf = hidden(admin.body.toString('utf8'), '_csrf');
    if (admin.status !== 200 || csrf === null) throw new Error(`admin page: ${admin.status}`);
    const bearer = { authorization: `Bearer ${token}` };
    const created = await request(this.port, {
      method: 'POST',
      path: '/indieweb/micropub/',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ type: ['h-entry'], properties: { content: ['fuzz fixture'] } }),
    });
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001a5f645400000000049454e44ae426082',
      'hex',
    );
    const boundary = 'fuzzfixtureboundary';
    const media = await request(this.port, {
      method: 'POST',
      path: '/indieweb/media/',
      headers: { ...bearer, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
        png,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    const mention = await request(this.port, {
      method: 'POST',
      path: '/indieweb/webmention/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ source: 'https://source.invalid/post', target: `${this.base}/` }).toString(),
    });
    this.creds = {
      TOKEN: token,
      SPARE_TOKEN: spareToken,
      COOKIE: jar.header(),
      CSRF: csrf,
      BASE: this.base,
      HOSTPORT: `127.0.0.1:${this.port}`,
      USER,
      ENTRY: created.headers.location ?? `${this.base}/entry`,
      MEDIA: media.headers.location ?? `${this.base}/indieweb/media/none.png`,
      WEBMENTION: mention.headers.location ?? `${this.base}/indieweb/webmention/0`,
    };
    const pathOf = (url) => new URL(url, this.base).pathname;
    this.creds.MEDIA_PATH = pathOf(this.creds.MEDIA);
    this.creds.ENTRY_PATH = pathOf(this.creds.ENTRY);
    this.creds.WEBMENTION_PATH = pathOf(this.creds.WEBMENTION);
    this.creds.WEBMENTION_ID = this.creds.WEBMENTION_PATH.split('/').filter(Boolean).at(-1);
    return this.creds;
  }

  /** Whether the fixtures still work (a fuzzed request may sign the session out or revoke the token). */
  async credentialsWork() {
    const micropub = await request(this.port, {
      path: '/indieweb/micropub/',
      headers: { authorization: `Bearer ${this.creds.TOKEN}` },
    }).catch(() => null);
    const admin = await request(this.port, { path: '/indieweb/admin/profile/', headers: { cookie: this.creds.COOKIE } }).catch(() => null);
    return { token: micropub?.status === 200, session: admin?.status === 200 };
  }

  async stop() {
    const child = this.child;
    if (child !== null && this.alive) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000)]);
      if (this.alive) child.kill('SIGKILL');
    }
  }

  async destroy() {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
