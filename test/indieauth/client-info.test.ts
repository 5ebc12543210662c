import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type CookieJar, type TestApp } from '../helpers/app.js';
import { addAlice, authorizationParams, decide, getAuthorization } from '../helpers/indieauth.js';

describe('client information discovery on the consent screen', () => {
  let t: TestApp;
  let jar: CookieJar;
  let server: http.Server;
  let port: number;
  const pages = new Map<string, { type: string; body: string; cacheControl?: string }>();
  const hits = new Map<string, number>();

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const path = request.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const page = pages.get(path);
      if (page === undefined) {
        response.statusCode = 404;
        return response.end();
      }
      response.setHeader('content-type', page.type);
      if (page.cacheControl !== undefined) response.setHeader('cache-control', page.cacheControl);
      response.end(page.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    t = await buildTestApp({ env: { INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' } });
    jar = await addAlice(t);
  });

  afterAll(async () => {
    await t.close();
    server.close();
  });

  const clientId = (path: string) => `http://127.0.0.1:${port}${path}`;
  /** Another host than the client_id's: same server, reached by name. */
  const foreignRedirect = (path: string) => `http://localhost:${port}${path}`;

  it('200 shows the name from a JSON client metadata document that publishes the cross-host redirect_uri, and approval works', async () => {
    pages.set('/json-app', {
      type: 'application/json',
      body: JSON.stringify({
        client_id: clientId('/json-app'),
        client_name: 'Jay Son App',
        client_uri: clientId('/'),
        redirect_uris: [foreignRedirect('/cb')],
      }),
    });
    const page = await getAuthorization(
      t,
      jar,
      authorizationParams({ client_id: clientId('/json-app'), redirect_uri: foreignRedirect('/cb') }),
    );
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Sign in to Jay Son App');
    expect(page.body).toContain('The app publishes it as its own.');
    const approved = await decide(t, jar, page, 'approve');
    expect(approved.statusCode).toBe(302);
    expect(new URL(approved.headers.location as string).searchParams.get('code')).toBeTruthy();
  });

  it('400 refuses a cross-host redirect_uri the client page does not publish, and the consent submission issues nothing', async () => {
    pages.set('/h-app', {
      type: 'text/html',
      body: `<div class="h-app"><a class="u-url p-name" href="/">Aitch App</a></div><link rel="redirect_uri" href="/own-callback">`,
    });
    const refused = await getAuthorization(
      t,
      jar,
      authorizationParams({ client_id: clientId('/h-app'), redirect_uri: foreignRedirect('/steal') }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(refused.body).toBe('invalid redirect_uri: on another host than client_id and not published by the client');
    const before = await t.database.db.selectFrom('indieweb_auth_code').select('code_hash').execute();
    const allowedPage = await getAuthorization(
      t,
      jar,
      authorizationParams({ client_id: clientId('/h-app'), redirect_uri: clientId('/own-callback') }),
    );
    const forced = await decide(t, jar, allowedPage, 'approve', { redirect_uri: foreignRedirect('/steal') });
    expect(forced.headers.location).toBeUndefined();
    expect(await t.database.db.selectFrom('indieweb_auth_code').select('code_hash').execute()).toEqual(before);
  });

  it('200 shows the h-app name and accepts a rel=redirect_uri on another host', async () => {
    pages.set('/h-app-2', {
      type: 'text/html',
      body: `<div class="h-x-app"><span class="p-name">Second App</span></div><link rel="redirect_uri" href="${foreignRedirect('/cb2')}">`,
    });
    const page = await getAuthorization(
      t,
      jar,
      authorizationParams({ client_id: clientId('/h-app-2'), redirect_uri: foreignRedirect('/cb2') }),
    );
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Sign in to Second App');
  });

  it('a JSON document naming another client_id is ignored: its name is not shown and its redirect URIs do not count', async () => {
    pages.set('/liar', {
      type: 'application/json',
      body: JSON.stringify({ client_id: 'https://someone-else.example/', client_name: 'Liar', redirect_uris: [foreignRedirect('/x')] }),
    });
    const sameHost = await getAuthorization(t, jar, authorizationParams({ client_id: clientId('/liar'), redirect_uri: clientId('/x') }));
    expect(sameHost.statusCode).toBe(200);
    expect(sameHost.body).not.toContain('Liar');
    const liar = await getAuthorization(t, jar, authorizationParams({ client_id: clientId('/liar'), redirect_uri: foreignRedirect('/x') }));
    expect(liar.statusCode).toBe(400);
  });

  it('400 for a cross-host redirect_uri when the client page cannot be read (issue 23 #11); approval and denial forged to it redirect nowhere', async () => {
    const before = await t.database.db.selectFrom('indieweb_auth_code').select('code_hash').execute();
    // no page at /missing: 404, so the client publishes nothing
    const missing = await getAuthorization(
      t,
      jar,
      authorizationParams({ client_id: clientId('/missing'), redirect_uri: 'https://evil.example/steal' }),
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(missing.body).toMatch(/^invalid redirect_uri/);
    // the same host as the client_id needs no published list (SPEC.md's rules)
    const ownHost = await getAuthorization(
      t,
      jar,
      authorizationParams({ client_id: clientId('/missing'), redirect_uri: clientId('/callback') }),
    );
    expect(ownHost.statusCode).toBe(200);
    expect(ownHost.body).not.toContain('class="warning"');
    for (const decision of ['approve', 'deny'] as const) {
      const forged = await decide(t, jar, ownHost, decision, { redirect_uri: 'https://evil.example/steal' });
      expect(forged.statusCode).toBe(400);
      expect(forged.headers.location).toBeUndefined();
    }
    expect(await t.database.db.selectFrom('indieweb_auth_code').select('code_hash').execute()).toEqual(before);
    // an unreachable client host is refused just the same
    const unreachable = await getAuthorization(
      t,
      jar,
      authorizationParams({ client_id: 'http://127.0.0.1:1/', redirect_uri: 'https://evil.example/steal' }),
    );
    expect(unreachable.statusCode).toBe(400);
  });

  it('tries a page that could not be read again after 30 s, so a client that fixes its page is not refused for long', async () => {
    const params = authorizationParams({ client_id: clientId('/late'), redirect_uri: foreignRedirect('/late-cb') });
    expect((await getAuthorization(t, jar, params)).statusCode).toBe(400);
    // a page of <head> links only, its <body> empty, is read too
    pages.set('/late', {
      type: 'text/html',
      body: `<!doctype html><html><head><link rel="redirect_uri" href="${foreignRedirect('/late-cb')}"></head><body></body></html>`,
    });
    expect((await getAuthorization(t, jar, params)).statusCode).toBe(400);
    t.clock.advance(31);
    expect((await getAuthorization(t, jar, params)).statusCode).toBe(200);
  });

  it('caches a client page per Cache-Control', async () => {
    pages.set('/cached', {
      type: 'text/html',
      body: '<div class="h-app"><span class="p-name">Cached</span></div>',
      cacheControl: 'max-age=60',
    });
    for (let n = 0; n < 3; n++)
      await getAuthorization(t, jar, authorizationParams({ client_id: clientId('/cached'), redirect_uri: clientId('/cb') }));
    expect(hits.get('/cached')).toBe(1);
    t.clock.advance(61);
    await getAuthorization(t, jar, authorizationParams({ client_id: clientId('/cached'), redirect_uri: clientId('/cb') }));
    expect(hits.get('/cached')).toBe(2);
  });
});
