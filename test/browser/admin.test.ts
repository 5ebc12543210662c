import http from 'node:http';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { HAS_CHROMIUM, launchBrowser, openPage, screenshot, CHROMIUM } from '../helpers/browser.js';
import { freePort } from '../helpers/global-setup.js';
import { addAlice, PASSWORD, S256_CHALLENGE } from '../helpers/indieauth.js';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3d4b1a50000000049454e44ae426082',
  'hex',
);

if (!HAS_CHROMIUM) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe.skipIf(!HAS_CHROMIUM)('the pages in a real browser', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let client: http.Server;
  let clientBase: string;
  let page: Page;
  let errors: string[];
  let closePage: () => Promise<void>;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await buildTestApp({ env: { INDIEWEB_BASE_URL: base, INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'false' } });
    await addAlice(t, { me: [`${base}/`] });
    await t.app.listen({ host: '127.0.0.1', port });
    // a stand-in IndieAuth client: its callback page just shows what it got
    client = http.createServer((request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><title>client</title><p id="callback">${request.url?.startsWith('/callback') ? 'callback reached' : 'client'}</p>`,
      );
    });
    await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));
    clientBase = `http://127.0.0.1:${(client.address() as { port: number }).port}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    client?.close();
    await t?.close();
  });

  beforeEach(async () => {
    ({ page, errors, close: closePage } = await openPage(browser));
  });

  afterEach(async () => {
    await closePage();
    // every test fails on a console error, CSP violations included
    expect(errors).toEqual([]);
  });

  async function signIn(): Promise<void> {
    await page.goto(`${base}/indieweb/admin/profile/`);
    await page.fill('#username', 'alice');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/indieweb/admin/profile/`);
  }

  it('signs in from the login page and lands on the page asked for', async () => {
    await page.goto(`${base}/indieweb/admin/profile/`);
    expect(new URL(page.url()).pathname).toBe('/indieweb/login/');
    await screenshot(page, 'login');
    await page.fill('#username', 'alice');
    await page.fill('#password', 'wrong password');
    await page.click('button[type=submit]');
    await expect(page.locator('.error').textContent()).resolves.toContain('Sign-in failed');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/indieweb/admin/profile/`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Profile');
    await screenshot(page, 'admin-profile');
  });

  it('approves an IndieAuth consent and is sent back to the client with a code', async () => {
    await signIn();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: `${clientBase}/`,
      redirect_uri: `${clientBase}/callback`,
      state: 'browser-state',
      me: `${base}/`,
      scope: 'create media',
      code_challenge: S256_CHALLENGE,
      code_challenge_method: 'S256',
    });
    await page.goto(`${base}/indieweb/auth/?${query.toString()}`);
    await expect(page.locator('ul.scopes li').allTextContents()).resolves.toEqual(['create — create new posts', 'media — upload files']);
    await screenshot(page, 'consent');
    await page.click('button[value=approve]');
    await page.waitForURL((url) => url.pathname === '/callback');
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe('browser-state');
    expect(callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(callback.searchParams.get('iss')).toBe(`${base}/`);
    await expect(page.locator('#callback').textContent()).resolves.toBe('callback reached');
  });

  it('edits the profile: an invalid value is shown inline and not saved, a valid one is saved', async () => {
    await signIn();
    await page.fill('#field-photo', 'javascript:alert(1)');
    await page.fill('#field-name', 'Alice in the browser');
    await page.click('form[action="/indieweb/admin/profile/"] button[type=submit]');
    await expect(page.locator('.error').first().textContent()).resolves.toContain('is not an absolute http(s) URL');
    const unsaved = await t.app.inject({ method: 'GET', url: '/indieweb/profile/alice/', headers: { accept: 'application/json' } });
    expect(unsaved.json().h_card.name).toEqual(['alice']);
    await screenshot(page, 'admin-profile-error');
    await page.fill('#field-photo', 'https://alice.example/me.jpg');
    await page.click('form[action="/indieweb/admin/profile/"] button[type=submit]');
    await expect(page.locator('.notice').textContent()).resolves.toBe('Profile saved.');
    const saved = await t.app.inject({ method: 'GET', url: '/indieweb/profile/alice/', headers: { accept: 'application/json' } });
    expect(saved.json().h_card).toMatchObject({ name: ['Alice in the browser'], photo: ['https://alice.example/me.jpg'] });
  });

  it('revokes a token of a connected app', async () => {
    const user = (await t.app.indieweb.users!.findByName('alice'))!;
    const { token } = await t.app.indieweb.tokens.issue({
      userId: user.id,
      clientId: 'https://revoke-me.example/',
      me: user.me[0]!,
      scope: 'create',
      expiresIn: 3600,
    });
    const bearer = { authorization: `Bearer ${token}` };
    expect((await t.app.inject({ method: 'GET', url: '/indieweb/token/', headers: bearer })).statusCode).toBe(200);
    await signIn();
    await page.goto(`${base}/indieweb/admin/apps/`);
    await screenshot(page, 'admin-apps');
    const section = page.locator('section.client', { hasText: 'https://revoke-me.example/' });
    await section.locator('button', { hasText: /^Revoke$/ }).click();
    await expect(page.locator('.notice').textContent()).resolves.toBe('Access revoked.');
    expect((await t.app.inject({ method: 'GET', url: '/indieweb/token/', headers: bearer })).statusCode).toBe(401);
  });

  it('marks a webmention as spam', async () => {
    const { record } = await t.app.indieweb.webmention.receive('https://spammer.example/post', `${base}/some-post`);
    await signIn();
    await page.goto(`${base}/indieweb/admin/webmentions/`);
    await screenshot(page, 'admin-webmentions');
    await page.locator('li.mention', { hasText: 'https://spammer.example/post' }).locator('button', { hasText: 'Mark as spam' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toBe('Webmention marked as spam.');
    expect((await t.app.indieweb.webmention.get(record.id)).status).toBe('spam');
  });

  it('deletes a media file', async () => {
    const user = (await t.app.indieweb.users!.findByName('alice'))!;
    const { token } = await t.app.indieweb.tokens.issue({
      userId: user.id,
      clientId: 'https://app.example/',
      me: user.me[0]!,
      scope: 'media',
      expiresIn: 3600,
    });
    const boundary = 'browserboundary';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="dot.png"\r\nContent-Type: image/png\r\n\r\n`),
      PNG,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const upload = await fetch(`${base}/indieweb/media/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: payload,
    });
    expect(upload.status).toBe(201);
    const url = upload.headers.get('location')!;
    await signIn();
    await page.goto(`${base}/indieweb/admin/media/`);
    await expect(page.locator(`input[value="${url}"]`).count()).resolves.toBe(1);
    await screenshot(page, 'admin-media');
    await page.locator('li.media-item', { hasText: 'dot.png' }).locator('button', { hasText: 'Delete' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toBe('Deleted.');
    expect((await fetch(url)).status).toBe(404);
  });

  it('shows the account page', async () => {
    await signIn();
    await page.goto(`${base}/indieweb/admin/account/`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Account');
    await screenshot(page, 'admin-account');
  });
});
