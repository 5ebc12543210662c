/**
 * Issue 28 F4 and class 1: a client page is parsed in the parse pool, off
 * the event loop, within a time budget. The page here is under the 256 KiB
 * a client page may have: one link with 38,000 distinct rel values, which
 * the microformats parser reads in quadratic time (about 13 s on the machine
 * this was written on, in the request's own thread before the pool). While it is
 * parsed, other requests are answered; the sign-in request gets the answer
 * of a client page that cannot be read (no name from the page), not a stall.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type CookieJar, type TestApp } from '../helpers/app.js';
import { addAlice, authorizationParams, getAuthorization } from '../helpers/indieauth.js';

const SLOW_PAGE = `<div class="h-app"><span class="p-name">Slow App</span></div><a href="/x" rel="${Array.from({ length: 38_000 }, (_, i) => `r${i}`).join(' ')}">x</a>`;

describe('a client page that takes too long to parse (issue 28 F4)', () => {
  let t: TestApp;
  let jar: CookieJar;
  let server: http.Server;
  let port: number;
  let served: () => void = () => {};

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      response.setHeader('content-type', 'text/html');
      const body = request.url === '/slow' ? SLOW_PAGE : '<div class="h-app"><span class="p-name">Quick App</span></div>';
      response.end(body, () => served());
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

  it('other requests are answered while it is parsed; the consent page shows no name from the unreadable page; the next client page reads normally', async () => {
    const clientId = `http://127.0.0.1:${port}/slow`;
    const pageSent = new Promise<void>((resolve) => (served = resolve));
    let answered = false;
    const signIn = getAuthorization(t, jar, authorizationParams({ client_id: clientId, redirect_uri: `http://127.0.0.1:${port}/cb` })).then(
      (response) => {
        answered = true;
        return response;
      },
    );
    await pageSent;
    // one after another, each needing the event loop: a parse on it would hold every one until it ends
    let before = 0;
    for (let i = 0; i < 5; i++) {
      const other = await t.app.inject({ method: 'GET', url: '/indieweb/login/' });
      expect(other.statusCode).toBe(200);
      if (!answered) before += 1;
    }
    expect(before).toBe(5);
    const page = await signIn;
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('Slow App');

    const quick = await getAuthorization(
      t,
      jar,
      authorizationParams({ client_id: `http://127.0.0.1:${port}/quick`, redirect_uri: `http://127.0.0.1:${port}/cb` }),
    );
    expect(quick.statusCode).toBe(200);
    expect(quick.body).toContain('Sign in to Quick App');
  });
});
