import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, hiddenField, type TestApp } from '../helpers/app.js';
import { addAlice, authorizationParams, authorizationUrl, PASSWORD } from '../helpers/indieauth.js';
import { LoopbackBrowser, serveOnLoopback } from '../helpers/loopback.js';

// issue 28 F20: an https client_id must not get its code at an http redirect_uri of the same host (in clear on the network)
describe('an https client_id and an http redirect_uri on the same host (real HTTP)', () => {
  let t: TestApp;
  let browser: LoopbackBrowser;

  beforeAll(async () => {
    t = await buildTestApp();
    await addAlice(t);
    browser = new LoopbackBrowser(await serveOnLoopback(t.app));
    await browser.signIn('alice', PASSWORD);
  });
  afterAll(async () => t?.close());

  const codes = () => t.database.db.selectFrom('indieweb_auth_code').select('code_hash').execute();

  it('400 plain text before any consent; a consent forged to it issues no code and redirects nowhere', async () => {
    const before = await codes();
    const downgraded = authorizationParams({ client_id: 'https://app.example/', redirect_uri: 'http://app.example/callback' });
    const refused = await browser.get(authorizationUrl(downgraded));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(refused.body).toBe('invalid redirect_uri: http for an https client_id and not published by the client');

    // the consent page of the https callback, its form posted with the http one in its place
    const allowed = await browser.get(
      authorizationUrl(authorizationParams({ client_id: 'https://app.example/', redirect_uri: 'https://app.example/callback' })),
    );
    expect(allowed.status).toBe(200);
    for (const decision of ['approve', 'deny']) {
      const forged = await browser.post('/indieweb/auth/consent/', { ...downgraded, _csrf: hiddenField(allowed.body, '_csrf'), decision });
      expect(forged.status).toBe(400);
      expect(forged.location).toBeNull();
    }
    expect(await codes()).toEqual(before);
  });

  it('an http client_id keeps its http redirect_uri, and https to https is untouched', async () => {
    const plain = await browser.get(
      authorizationUrl(authorizationParams({ client_id: 'http://app.example/', redirect_uri: 'http://app.example/callback' })),
    );
    expect(plain.status).toBe(200);
    const upgraded = await browser.get(
      authorizationUrl(authorizationParams({ client_id: 'http://app.example/', redirect_uri: 'https://app.example/callback' })),
    );
    expect(upgraded.status).toBe(200);
  });
});
