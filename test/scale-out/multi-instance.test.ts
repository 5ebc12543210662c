/**
 * Scale-out, end to end (issue 18 item 3; the recipe in docs/deployment.md):
 * one embedded PostgreSQL, one S3-compatible server (s3rver), two real
 * `indiestack serve` processes with the same secret and base URL, the
 * database content handler and S3 media, each with a data directory of its
 * own, behind a round-robin proxy that sends every request to the next
 * instance. Everything a person or client does goes through the proxy, and
 * the steps that matter are steered so that consecutive ones land on
 * different instances.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, form, hiddenField } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { freshLocation } from '../helpers/databases.js';
import { PNG_1X1 } from '../helpers/admin.js';
import { prepareBackend, startS3, type MediaBackend, type S3Fixture } from '../helpers/media.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../helpers/proxy.js';
import { killServe, startServe, waitFor, type ServeProcess } from '../helpers/serve.js';
import { startSourceServer, type SourceServer } from '../helpers/webmention.js';

/** The documented bound for a revocation or a disabled account to reach every instance (docs/deployment.md). */
const BOUND_MS = 1_000;
const SECRET = 'scale-out-test-secret-that-is-long-enough-for-indiestack';
const PASSWORD = 'alice password 1';
const ME = 'https://alice.example/';
const SCOPE = 'create update delete undelete media';

describe('two instances behind a round-robin proxy, on PostgreSQL and S3', () => {
  let database: { url: string; drop(): Promise<void> };
  let s3: S3Fixture;
  let media: MediaBackend;
  let source: SourceServer;
  let proxy: RoundRobinProxy;
  let root: string;
  const instances: ServeProcess[] = [];
  let env: Record<string, string>;
  let clientId: string;
  let redirectUri: string;
  const jar = new CookieJar();
  let token: string;
  let entryUrl: string;

  beforeAll(async () => {
    const fresh = await freshLocation('postgres');
    database = { url: fresh.url, drop: fresh.drop };
    s3 = await startS3();
    media = await prepareBackend('s3', s3);
    source = await startSourceServer();
    proxy = await startRoundRobinProxy();
    root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-scale-out-'));
    // the client's page, fetched by the consent screen (loopback: INDIEWEB_ALLOW_PRIVATE_NETWORKS)
    clientId = source.url('/app/');
    redirectUri = source.url('/app/callback');
    source.set(
      '/app/',
      `<!doctype html><title>App</title><div class="h-app"><a class="u-url p-name" href="${clientId}">Scale-out app</a></div>`,
    );
    env = {
      INDIEWEB_DATABASE_URL: database.url,
      INDIEWEB_SECRET: SECRET,
      INDIEWEB_BASE_URL: proxy.origin,
      INDIEWEB_TRUST_PROXY: 'true',
      INDIEWEB_MICROPUB_HANDLER: 'database',
      INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true',
      ...media.env,
    };
    const cli = (args: string[], input?: string) =>
      runCli(args, { cwd: root, env: { ...env, INDIEWEB_DATA_DIR: path.join(root, 'cli') }, ...(input === undefined ? {} : { input }) });
    const migrated = await cli(['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    const added = await cli(['user', 'add', 'alice', '--me', ME, '--password-stdin'], `${PASSWORD}\n`);
    expect(added.code, added.stderr).toBe(0);
    // each instance has a data directory of its own: nothing on disk is shared
    instances.push(
      ...(await Promise.all(
        ['a', 'b'].map((name) => startServe(root, { ...env, INDIEWEB_DATA_DIR: path.join(root, name), INDIEWEB_LOG_LEVEL: 'warn' })),
      )),
    );
    proxy.setUpstreams(instances.map((instance) => instance.base));
  });

  afterAll(async () => {
    for (const instance of instances) await killServe(instance);
    await proxy?.close();
    await source?.close();
    await media?.dispose();
    await s3?.close();
    await database?.drop();
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  /** Makes the next proxied request land on instance `index` (a health check spends a turn when needed). */
  async function steerTo(index: number) {
    const upcoming = proxy.requests.length % instances.length;
    if (upcoming !== index) expect((await fetch(`${proxy.origin}/healthz`)).status).toBe(200);
  }

  /** Which instance answered the last proxied request. */
  const lastInstance = () => proxy.requests.at(-1)!.upstream;

  /** A request through the proxy as a browser with the cookie jar (redirects not followed). */
  async function browse(pathAndQuery: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const response = await fetch(`${proxy.origin}${pathAndQuery}`, {
      method: init.method ?? (init.form === undefined ? 'GET' : 'POST'),
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(init.form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(init.form === undefined ? {} : { body: form(init.form) }),
    });
    jar.store(response.headers.getSetCookie());
    return response;
  }

  /** A Micropub request with a bearer token through the proxy. */
  function micropub(bearer: string, init: { query?: string; json?: unknown; form?: Record<string, string> } = {}) {
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.form !== undefined ? form(init.form) : undefined;
    return fetch(`${proxy.origin}/indieweb/micropub/${init.query === undefined ? '' : `?${init.query}`}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(init.json !== undefined
          ? { 'content-type': 'application/json' }
          : init.form !== undefined
            ? { 'content-type': 'application/x-www-form-urlencoded' }
            : {}),
      },
      ...(body === undefined ? {} : { body }),
    });
  }

  /** Milliseconds until `check` holds, polled every 5 ms; Infinity after 10 s. */
  async function millisecondsUntil(check: () => Promise<boolean>): Promise<number> {
    const started = performance.now();
    while (performance.now() - started < 10_000) {
      if (await check()) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return Infinity;
  }

  /** Code flow through the proxy: sign in on one instance, consent on the other, exchange on the first. */
  async function codeFlow(state: string): Promise<{ access_token: string; refresh_token?: string; scope: string; me: string }> {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      state,
      me: ME,
      scope: SCOPE,
    });
    const consentPage = await browse(`/indieweb/auth/?${params.toString()}`);
    expect(consentPage.status).toBe(200);
    const shownOn = lastInstance();
    const html = await consentPage.text();
    const fields: Record<string, string> = { decision: 'approve' };
    for (const name of ['_csrf', 'client_id', 'redirect_uri', 'state', 'me', 'scope']) fields[name] = hiddenField(html, name);
    await steerTo(1 - shownOn);
    const decided = await browse('/indieweb/auth/consent/', { form: fields });
    expect(lastInstance()).not.toBe(shownOn);
    expect(decided.status).toBe(302);
    const redirect = new URL(decided.headers.get('location')!);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(redirectUri);
    expect(redirect.searchParams.get('state')).toBe(state);
    await steerTo(shownOn);
    const exchanged = await fetch(`${proxy.origin}/indieweb/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form({
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        client_id: clientId,
        redirect_uri: redirectUri,
      }),
    });
    expect(exchanged.status).toBe(200);
    return (await exchanged.json()) as { access_token: string; scope: string; me: string };
  }

  it('signs in on one instance, consents on the other, exchanges the code on the first', async () => {
    const page = await browse('/indieweb/login/');
    expect(page.status).toBe(200);
    const loginShownOn = lastInstance();
    await steerTo(1 - loginShownOn);
    const signedIn = await browse('/indieweb/login/', {
      form: { _csrf: hiddenField(await page.text(), '_csrf'), username: 'alice', password: PASSWORD, return_to: '/indieweb/' },
    });
    expect(signedIn.status).toBe(303);
    expect(lastInstance()).not.toBe(loginShownOn);
    const grant = await codeFlow('state-1');
    expect(grant.me).toBe(ME);
    expect(grant.scope).toBe(SCOPE);
    token = grant.access_token;
    // the token works on both instances
    for (const index of [0, 1]) {
      await steerTo(index);
      expect((await micropub(token, { query: 'q=config' })).status).toBe(200);
    }
  });

  it('Micropub: create on one instance, then source, update, delete and undelete alternate between both', async () => {
    await steerTo(0);
    const created = await micropub(token, {
      json: { type: ['h-entry'], properties: { name: ['Scaled'], content: ['Written on one instance'], category: ['scale'] } },
    });
    expect(created.status).toBe(201);
    entryUrl = created.headers.get('location')!;
    expect(entryUrl.startsWith(`${proxy.origin}/alice/`)).toBe(true);

    await steerTo(1);
    const sourced = await micropub(token, { query: `q=source&url=${encodeURIComponent(entryUrl)}` });
    expect(sourced.status).toBe(200);
    expect(((await sourced.json()) as { properties: Record<string, unknown[]> }).properties.content).toEqual(['Written on one instance']);

    await steerTo(0);
    const updated = await micropub(token, {
      json: { action: 'update', url: entryUrl, replace: { content: ['Changed on the other one'] }, add: { category: ['twice'] } },
    });
    expect(updated.status).toBeLessThan(300);
    await steerTo(1);
    const afterUpdate = (await (await micropub(token, { query: `q=source&url=${encodeURIComponent(entryUrl)}` })).json()) as {
      properties: Record<string, unknown[]>;
    };
    expect(afterUpdate.properties.content).toEqual(['Changed on the other one']);
    expect(afterUpdate.properties.category).toEqual(['scale', 'twice']);

    // the list agrees on both instances
    for (const index of [0, 1]) {
      await steerTo(index);
      const list = (await (await micropub(token, { query: 'q=source' })).json()) as {
        items: { properties: { url?: string[] } }[];
        paging: { total: number };
      };
      expect(list.items.map((item) => item.properties.url?.[0])).toEqual([entryUrl]);
      expect(list.paging.total).toBe(1);
    }

    await steerTo(0);
    expect((await micropub(token, { form: { action: 'delete', url: entryUrl } })).status).toBeLessThan(300);
    await steerTo(1);
    const gone = await micropub(token, { query: `q=source&url=${encodeURIComponent(entryUrl)}` });
    expect(gone.status).toBeGreaterThanOrEqual(400);
    expect(gone.status).toBeLessThan(500);
    await steerTo(0);
    const emptyList = (await (await micropub(token, { query: 'q=source' })).json()) as { items: unknown[] };
    expect(emptyList.items).toHaveLength(0);

    await steerTo(1);
    expect((await micropub(token, { form: { action: 'undelete', url: entryUrl } })).status).toBeLessThan(300);
    await steerTo(0);
    const back = await micropub(token, { query: `q=source&url=${encodeURIComponent(entryUrl)}` });
    expect(back.status).toBe(200);
    expect(((await back.json()) as { properties: Record<string, unknown[]> }).properties.content).toEqual(['Changed on the other one']);
  });

  it('media uploaded through one instance is stored in the bucket and fetched by its URL', async () => {
    const boundary = 'scale-out-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="pixel.png"\r\nContent-Type: image/png\r\n\r\n`),
      Buffer.from(PNG_1X1),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    await steerTo(1);
    const uploaded = await fetch(`${proxy.origin}/indieweb/media/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(uploaded.status).toBe(201);
    const location = uploaded.headers.get('location')!;
    expect(location.startsWith(s3.endpoint)).toBe(true);
    const fetched = await fetch(location);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(Buffer.from(PNG_1X1))).toBe(true);
    expect(await media.stored()).toHaveLength(1);
    // the entry that uses it is created on the other instance
    await steerTo(0);
    const withPhoto = await micropub(token, { json: { type: ['h-entry'], properties: { content: ['With a photo'], photo: [location] } } });
    expect(withPhoto.status).toBe(201);
  });

  it('webmentions received through both instances are each verified exactly once', async () => {
    const sources = ['/mention/1', '/mention/2', '/mention/3', '/mention/4'];
    for (const sourcePath of sources) {
      source.set(
        sourcePath,
        `<!doctype html><div class="h-entry"><p class="e-content">Nice post: <a href="${entryUrl}">this</a></p></div>`,
      );
    }
    const statusUrls: string[] = [];
    for (const sourcePath of sources) {
      const received = await fetch(`${proxy.origin}/indieweb/webmention/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ source: source.url(sourcePath), target: entryUrl }),
      });
      expect(received.status).toBe(201);
      statusUrls.push(new URL(received.headers.get('location')!, proxy.origin).toString());
    }
    // received on both instances
    expect(
      new Set(proxy.requests.filter((request) => request.path === '/indieweb/webmention/').map((request) => request.upstream)).size,
    ).toBe(2);
    const allVerified = await waitFor(async () => {
      const statuses = await Promise.all(
        statusUrls.map(
          async (url) => ((await (await fetch(url, { headers: { accept: 'application/json' } })).json()) as { status: string }).status,
        ),
      );
      return statuses.every((status) => status === 'verified');
    }, 20_000);
    expect(allVerified).toBe(true);
    // both workers poll every second: give each a few more turns to fetch anything twice
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    for (const sourcePath of sources) expect(source.hits(sourcePath)).toBe(1);
    const listed = await fetch(`${proxy.origin}/indieweb/webmention/?target=${encodeURIComponent(entryUrl)}`, {
      headers: { accept: 'application/json' },
    });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { children: { url: string }[]; paging: { total: number } };
    expect(body.paging.total).toBe(sources.length);
    expect(body.children.map((child) => child.url).sort()).toEqual(sources.map((sourcePath) => source.url(sourcePath)).sort());
  });

  it('a token revoked on one instance is refused by the other within the bound', async () => {
    const grant = await codeFlow('state-revoke');
    // both instances have validated (and remembered) it
    for (const index of [0, 1, 0, 1]) {
      await steerTo(index);
      expect((await micropub(grant.access_token, { query: 'q=config' })).status).toBe(200);
    }
    await steerTo(0);
    const revoked = await fetch(`${proxy.origin}/indieweb/token/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ token: grant.access_token }),
    });
    expect(revoked.status).toBe(200);
    const delay = await millisecondsUntil(async () => {
      await steerTo(1);
      return (await micropub(grant.access_token, { query: 'q=config' })).status === 401;
    });
    expect(delay).toBeLessThan(BOUND_MS);
    await steerTo(0);
    expect((await micropub(grant.access_token, { query: 'q=config' })).status).toBe(401);
    // the first token is untouched
    expect((await micropub(token, { query: 'q=config' })).status).toBe(200);
  });

  it('an account disabled from the command line: its session and its tokens are refused on every instance', async () => {
    for (const index of [0, 1]) {
      await steerTo(index);
      expect((await browse('/indieweb/admin/profile/')).status).toBe(200);
      expect((await micropub(token, { query: 'q=config' })).status).toBe(200);
    }
    const disabled = await runCli(['user', 'disable', 'alice'], { cwd: root, env: { ...env, INDIEWEB_DATA_DIR: path.join(root, 'cli') } });
    expect(disabled.code, disabled.stderr).toBe(0);
    for (const index of [0, 1]) {
      const delay = await millisecondsUntil(async () => {
        await steerTo(index);
        return (await micropub(token, { query: 'q=config' })).status === 401;
      });
      expect(delay).toBeLessThan(BOUND_MS);
      await steerTo(index);
      const page = await browse('/indieweb/admin/profile/');
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toMatch(/\/indieweb\/login\//);
    }
    // signing in again is refused on both
    for (const index of [0, 1]) {
      await steerTo(index);
      const login = await browse('/indieweb/login/');
      const attempt = await browse('/indieweb/login/', {
        form: { _csrf: hiddenField(await login.text(), '_csrf'), username: 'alice', password: PASSWORD, return_to: '/indieweb/' },
      });
      expect(attempt.status).not.toBe(303);
    }
  });
});
