import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { CookieJar } from '../helpers/app.js';
import { addUser, buildAdminApp, getAdmin, issueToken, type AdminTestApp } from '../helpers/admin.js';
import { listenOnLoopback } from '../helpers/net.js';

describe('GET /indieweb/admin/apps/: apps by their discovered names', () => {
  let t: AdminTestApp;
  let alice: { user: HostUser; jar: CookieJar };
  let client: http.Server;
  let clientBase: string;

  beforeAll(async () => {
    // private networks allowed: the apps' pages are on loopback
    t = await buildAdminApp({ INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' });
    alice = await addUser(t, 'alice');
    client = http.createServer((request, response) => {
      if (request.url === '/named/') {
        response.setHeader('content-type', 'text/html; charset=utf-8');
        response.end(
          '<!doctype html><div class="h-app"><img class="u-logo" src="https://cdn.example/logo.png" alt=""><a class="u-url p-name" href="/named/">Sketch &lt;book&gt;</a></div>',
        );
      } else if (request.url === '/insecure-logo/') {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            client_id: `${clientBase}/insecure-logo/`,
            client_name: 'Plain Logo App',
            logo_uri: 'http://cdn.example/logo.png',
          }),
        );
      } else {
        response.statusCode = 404;
        response.end();
      }
    });
    await listenOnLoopback(client, 0);
    clientBase = `http://127.0.0.1:${(client.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    client?.close();
    await t?.close();
  });

  it('200 shows the h-app name (escaped) and https logo, the client_id under it; an app without a page by its client_id', async () => {
    await issueToken(t, alice.user, { clientId: `${clientBase}/named/` });
    await issueToken(t, alice.user, { clientId: `${clientBase}/insecure-logo/` });
    await issueToken(t, alice.user, { clientId: `${clientBase}/missing/` });
    const page = await getAdmin(t, alice.jar, '/apps/');
    expect(page.statusCode).toBe(200);
    const sections = page.body.split('<section class="client">').slice(1);
    expect(sections).toHaveLength(3);
    const named = sections.find((section) => section.includes(`${clientBase}/named/`))!;
    expect(named).toContain(
      `<h2><img src="https://cdn.example/logo.png" alt="" width="32" height="32" loading="lazy">Sketch &lt;book&gt;</h2><p class="client-id"><code>${clientBase}/named/</code></p>`,
    );
    const insecure = sections.find((section) => section.includes(`${clientBase}/insecure-logo/`))!;
    // a logo over http is never loaded (the page would leak that it was opened)
    expect(insecure).toContain('<h2>Plain Logo App</h2>');
    expect(insecure).not.toContain('http://cdn.example/logo.png');
    const missing = sections.find((section) => section.includes(`${clientBase}/missing/`))!;
    expect(missing.startsWith(`<h2><code>${clientBase}/missing/</code></h2>`)).toBe(true);
  });
});
