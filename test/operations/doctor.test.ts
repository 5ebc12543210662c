/**
 * `indiestack doctor` against local pages that get each case right and
 * wrong: a real server behind a loopback proxy that passes, strips or
 * renames the Authorization header, and homepages that link this server, old
 * endpoints, nothing, or redirect to another spelling.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkTags } from '../../src/profile/template-helpers.js';
import { runCli } from '../helpers/cli.js';
import { freePort, listenOnLoopback } from '../helpers/net.js';
import { killServe, startServe, type ServeProcess } from '../helpers/serve.js';
import { startSourceServer, type SourceServer } from '../helpers/webmention.js';

type ProxyMode = 'pass' | 'strip' | 'x-forwarded';

interface Proxy {
  readonly origin: string;
  mode: ProxyMode;
  /** Every Authorization header that reached the proxy. */
  readonly authorizations: string[];
  close(): Promise<void>;
}

/** A reverse proxy on loopback in front of `targetPort`, doing to Authorization what `mode` says. */
async function startProxy(targetPort: () => number): Promise<Proxy> {
  const authorizations: string[] = [];
  const proxy: Proxy = {
    origin: '',
    mode: 'pass',
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((request, response) => {
    const headers = { ...request.headers };
    const authorization = headers.authorization;
    if (authorization !== undefined) authorizations.push(authorization);
    if (proxy.mode !== 'pass') delete headers.authorization;
    if (proxy.mode === 'x-forwarded' && authorization !== undefined) headers['x-forwarded-authorization'] = authorization;
    const upstream = http.request(
      { host: '127.0.0.1', port: targetPort(), method: request.method, path: request.url, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  const port = await freePort();
  await listenOnLoopback(server, port);
  (proxy as { origin: string }).origin = `http://127.0.0.1:${port}`;
  return proxy;
}

const H_CARD = '<div class="h-card"><a class="p-name u-url" href="/">Alice</a></div>';
const page = (head: string, body = H_CARD) => `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;

describe('indiestack doctor', () => {
  let cwd: string;
  let homepage: SourceServer;
  let proxy: Proxy;
  let serve: ServeProcess | undefined;
  let servePort = 0;
  const doctor = (args: string[], env: Record<string, string> = { INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' }) =>
    runCli(['doctor', ...args, '--base-url', proxy.origin], { cwd, env });
  const line = (stdout: string, start: string) => stdout.split('\n').find((candidate) => candidate.includes(` ${start}`)) ?? '';

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-doctor-'));
    homepage = await startSourceServer();
    proxy = await startProxy(() => servePort);
    for (const [name, me] of [
      ['alice', homepage.url('/alice/')],
      ['olga', homepage.url('/olga/')],
      ['bob', homepage.url('/bob')],
      ['carol', `http://127.0.0.1:${await freePort()}/`],
      ['lena', homepage.url('/lena/')],
      ['hank', homepage.url('/hank/')],
      ['tess', homepage.url('/tess/')],
      ['nina', homepage.url('/nina/')],
    ] as const) {
      const added = await runCli(['user', 'add', name, '--me', me, '--password-stdin'], { cwd, input: 'doctor test password\n' });
      expect(added.code).toBe(0);
    }
    servePort = await freePort();
    serve = await startServe(cwd, { INDIEWEB_BASE_URL: proxy.origin, INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' }, servePort);
    homepage.set('/alice/', page(linkTags(proxy.origin)));
    // old endpoints of another service, and no micropub or webmention link
    homepage.set(
      '/olga/',
      page(
        '<link rel="authorization_endpoint" href="https://indieauth.com/auth"><link rel="token_endpoint" href="https://tokens.indieauth.com/token">',
        '<p>no card</p>',
      ),
    );
    homepage.redirect('/bob', '/bob/');
    homepage.set('/bob/', page(linkTags(proxy.origin)));
    // every link in the Link header only (several header lines, two links comma-separated in one, a malformed link-value skipped)
    homepage.set('/lena/', {
      headers: {
        'content-type': 'text/html; charset=utf-8',
        link: [
          `<${proxy.origin}/indieweb/metadata>; rel="indieauth-metadata", <${proxy.origin}/indieweb/auth/>; rel=authorization_endpoint`,
          `<${proxy.origin}/indieweb/token/>; rel="token_endpoint"`,
          `<${proxy.origin}/indieweb/micropub/>; rel="micropub webmention-not"; crossorigin, </not-a-link`,
          `<${proxy.origin}/indieweb/webmention/>; rel="WebMention"`,
        ],
      },
      body: page(''),
    });
    // the web server still sends an old Micropub endpoint in its Link header; the HTML is right, but clients read the header first
    homepage.set('/hank/', {
      headers: { 'content-type': 'text/html; charset=utf-8', link: '<https://old-micropub.example/endpoint>; rel="micropub"' },
      body: page(linkTags(proxy.origin)),
    });
    // not HTML, but the Link header advertises this server
    homepage.set('/tess/', {
      headers: { 'content-type': 'text/plain', link: `<${proxy.origin}/indieweb/metadata>; rel="indieauth-metadata"` },
      body: 'hello',
    });
    // in the HTML an old endpoint comes before this server's
    homepage.set('/nina/', page(`<link rel="webmention" href="https://webmention.io/nina/webmention">${linkTags(proxy.origin)}`));
  });

  afterAll(async () => {
    await killServe(serve);
    await proxy.close();
    await homepage.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('exit 0 when everything is right: one PASS or WARN line per check, each with its fix', async () => {
    proxy.mode = 'pass';
    const result = await doctor(['alice']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    for (const text of lines) expect(text).toMatch(/^(PASS|WARN) \S/);
    expect(line(result.stdout, 'authorization-header:')).toMatch(/^PASS /);
    // http on this machine: fine for trying out, not for the internet
    expect(line(result.stdout, 'base-url:')).toMatch(/^WARN base-url: .* answers, over http on this machine only; fix: /);
    for (const rel of ['indieauth-metadata', 'authorization_endpoint', 'token_endpoint', 'micropub', 'webmention'])
      expect(line(result.stdout, `profile-link ${rel} `)).toMatch(/^PASS /);
    expect(line(result.stdout, 'h-card ')).toMatch(/^PASS h-card .*\(name: Alice\)/);
    expect(line(result.stdout, 'me-spelling ')).toMatch(/^WARN me-spelling \S+: \S+ is http: /);
    expect(line(result.stdout, 'media-storage:')).toMatch(/^PASS media-storage: a probe file was written, read back and deleted/);
    expect(line(result.stdout, 'clock:')).toMatch(/^PASS /);
    expect(line(result.stdout, 'database:')).toMatch(/^PASS /);
  });

  it('exit 1 and the proxy line to add when the proxy strips Authorization; the probe is never a real token', async () => {
    proxy.mode = 'strip';
    const result = await doctor(['alice']);
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'authorization-header:')).toMatch(
      /^FAIL authorization-header: an Authorization header sent to .* does not reach the server: every Micropub and media request would get 401; fix: .*proxy_set_header Authorization \$http_authorization;.*CGIPassAuth On/,
    );
    expect(proxy.authorizations.length).toBeGreaterThan(0);
    for (const sent of proxy.authorizations) expect(sent).toMatch(/^Bearer doctor-probe-[A-Za-z0-9_-]+$/);
  });

  it('exit 1 naming INDIEWEB_TRUST_PROXY when the proxy forwards the token as X-Forwarded-Authorization', async () => {
    proxy.mode = 'x-forwarded';
    const result = await doctor(['alice']);
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'authorization-header:')).toMatch(/^FAIL .*X-Forwarded-Authorization.*; fix: set INDIEWEB_TRUST_PROXY=true/);
  });

  it('exit 1 for a homepage linking old endpoints of another server; missing links and h-card are warnings', async () => {
    proxy.mode = 'pass';
    const result = await doctor(['olga']);
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'profile-link authorization_endpoint ')).toMatch(
      /^FAIL .* links rel="authorization_endpoint" to https:\/\/indieauth\.com\/auth, not this server \(an old endpoint\?\); fix: replace it with .*\/indieweb\/auth\//,
    );
    expect(line(result.stdout, 'profile-link token_endpoint ')).toMatch(/^FAIL /);
    expect(line(result.stdout, 'profile-link micropub ')).toMatch(
      /^WARN .* has no rel="micropub" link.*; fix: add the links `indiestack links olga --base-url /,
    );
    expect(line(result.stdout, 'profile-link indieauth-metadata ')).toMatch(/^WARN /);
    expect(line(result.stdout, 'h-card ')).toMatch(/^WARN /);
  });

  it('exit 1 when the profile URL redirects to another spelling (a trailing slash here; http to https alike)', async () => {
    const result = await doctor(['bob']);
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'me-spelling ')).toMatch(
      /^FAIL me-spelling http:\/\/127\.0\.0\.1:\d+\/bob: .*\/bob redirects to http:\/\/127\.0\.0\.1:\d+\/bob\/: .*; fix: make http:\/\/127\.0\.0\.1:\d+\/bob\/ the account's profile URL/,
    );
  });

  it('exit 1, not a crash, for a profile URL nothing answers at', async () => {
    const result = await doctor(['carol']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(line(result.stdout, 'profile ')).toMatch(
      /^FAIL profile http:\/\/127\.0\.0\.1:\d+\/: cannot fetch it \(cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)\)/,
    );
    // the other checks still ran
    expect(line(result.stdout, 'job-queue:')).toMatch(/^PASS /);
  });

  it('exit 1 without fetching private addresses unless INDIEWEB_ALLOW_PRIVATE_NETWORKS allows it', async () => {
    proxy.mode = 'pass';
    const before = proxy.authorizations.length;
    const result = await doctor(['alice'], {});
    expect(result.code).toBe(1);
    expect(line(result.stdout, 'base-url:')).toMatch(
      /^FAIL base-url: .* cannot be reached from here \(refusing to connect to 127\.0\.0\.1: not a public address\)/,
    );
    expect(proxy.authorizations.length).toBe(before);
    // a local trial is named as one, with the way to check it (issue 30 item 9)
    for (const name of ['base-url:', 'authorization-header:']) {
      expect(line(result.stdout, name)).toContain('fix: this is a local trial');
      expect(line(result.stdout, name)).toContain('INDIEWEB_ALLOW_PRIVATE_NETWORKS=true npx indiestack doctor');
    }
  });

  describe('reads rel links from the Link header as well as the HTML, the header first as clients do', () => {
    it('exit 0 when the Link header alone advertises this server (several header lines, a malformed link-value beside them, any case of rel)', async () => {
      proxy.mode = 'pass';
      const result = await doctor(['lena']);
      expect(result.code).toBe(0);
      for (const rel of ['indieauth-metadata', 'authorization_endpoint', 'token_endpoint', 'micropub', 'webmention']) {
        expect(line(result.stdout, `profile-link ${rel} `)).toMatch(/^PASS profile-link \S+ \S+: points at this server \(Link header\)$/);
      }
    });

    it('exit 1 when the Link header names an old endpoint the HTML does not: clients take the header', async () => {
      proxy.mode = 'pass';
      const result = await doctor(['hank']);
      expect(result.code).toBe(1);
      expect(line(result.stdout, 'profile-link micropub ')).toMatch(
        /^FAIL profile-link micropub \S+: \S+ links rel="micropub" to https:\/\/old-micropub\.example\/endpoint \(Link header\) before this server's http:\/\/127\.0\.0\.1:\d+\/indieweb\/micropub\/ \(HTML\): clients take the first one; fix: remove the rel="micropub" link to https:\/\/old-micropub\.example\/endpoint from the Link header your web server sends$/,
      );
      expect(line(result.stdout, 'profile-link webmention ')).toMatch(/^PASS .*: points at this server$/);
    });

    it('exit 1 when an old endpoint comes first in the HTML', async () => {
      proxy.mode = 'pass';
      const result = await doctor(['nina']);
      expect(result.code).toBe(1);
      expect(line(result.stdout, 'profile-link webmention ')).toMatch(
        /^FAIL .* links rel="webmention" to https:\/\/webmention\.io\/nina\/webmention \(HTML\) before this server's .*: clients take the first one; fix: remove the rel="webmention" link to https:\/\/webmention\.io\/nina\/webmention$/,
      );
    });

    it('a page that is not HTML is judged by its Link header; its missing h-card is a warning', async () => {
      proxy.mode = 'pass';
      const result = await doctor(['tess']);
      expect(result.code).toBe(0);
      expect(line(result.stdout, 'profile-link indieauth-metadata ')).toMatch(/^PASS .*\(Link header\)$/);
      expect(line(result.stdout, 'profile-link micropub ')).toMatch(
        /^WARN .* has no rel="micropub" link \(neither in a Link header nor in the HTML\)/,
      );
      expect(line(result.stdout, 'h-card ')).toMatch(/^WARN h-card \S+: \S+ answers text\/plain, not HTML: /);
      expect(result.stdout).not.toContain('profile-links ');
    });
  });

  it('--json: the same checks for machines, ok false when one fails', async () => {
    proxy.mode = 'strip';
    const result = await doctor(['alice', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      checks: { name: string; status: string; message: string; fix: string | null }[];
    };
    expect(report.ok).toBe(false);
    expect(report.checks.find((check) => check.name === 'authorization-header')).toMatchObject({
      status: 'FAIL',
      fix: expect.stringContaining('proxy_set_header'),
    });
    expect(report.checks.every((check) => ['PASS', 'WARN', 'FAIL'].includes(check.status))).toBe(true);
  });

  it('exit 1 with one line for an unknown account', async () => {
    const result = await doctor(['nobody']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('indiestack: no user named "nobody"\n');
  });
});

describe('GET /indieweb/self-test/authorization', () => {
  let cwd: string;
  let serve: ServeProcess | undefined;
  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-self-test-'));
    serve = await startServe(cwd);
  });
  afterAll(async () => {
    await killServe(serve);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('200 saying only whether a bearer arrived, never its value', async () => {
    const secret = 'a-bearer-value-that-must-never-come-back';
    const withBearer = await fetch(`${serve!.base}/indieweb/self-test/authorization`, { headers: { authorization: `Bearer ${secret}` } });
    expect(withBearer.status).toBe(200);
    expect(withBearer.headers.get('cache-control')).toBe('no-store');
    const text = await withBearer.text();
    expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toEqual({ bearer: true, via: 'authorization', forwardedIgnored: false });
    const without = await fetch(`${serve!.base}/indieweb/self-test/authorization`);
    expect(await without.json()).toEqual({ bearer: false, via: null, forwardedIgnored: false });
    const forwarded = await fetch(`${serve!.base}/indieweb/self-test/authorization`, {
      headers: { 'x-forwarded-authorization': `Bearer ${secret}` },
    });
    expect(await forwarded.json()).toEqual({ bearer: false, via: null, forwardedIgnored: true });
  });
});
