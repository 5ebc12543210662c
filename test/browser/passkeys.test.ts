import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { CookieJar, form, hiddenField, type TestApp, buildTestApp } from '../helpers/app.js';
import { CHROMIUM, HAS_CHROMIUM, launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import { freePort } from '../helpers/net.js';
import { createServer } from '../../src/app/server.js';
import { addAlice, PASSWORD, S256_CHALLENGE } from '../helpers/indieauth.js';

if (!HAS_CHROMIUM) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** The library's browser bundle, for the look-alike page (it has no CSP of ours). */
const BUNDLE = readFileSync(
  path.join(path.dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'),
  'utf8',
);

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** A platform authenticator that verifies the user (as a fingerprint would) without asking, through the DevTools Protocol. */
async function addAuthenticator(cdp: CDPSession): Promise<string> {
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

describe.skipIf(!HAS_CHROMIUM)('passkeys in a real browser (virtual authenticator)', () => {
  let t: TestApp;
  let base: string;
  let port: number;
  let browser: Browser;
  let client: http.Server;
  let clientPort: number;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let errors: string[];
  let closePage: () => Promise<void>;

  beforeAll(async () => {
    port = await freePort();
    // WebAuthn needs a secure context and a domain as RP ID: http://localhost is both
    base = `http://localhost:${port}`;
    t = await buildTestApp({ env: { INDIEWEB_BASE_URL: base } });
    await addAlice(t, { me: [`${base}/`] });
    await t.app.listen({ host: '127.0.0.1', port });
    // a stand-in IndieAuth client (its callback shows what it got), and on another name a look-alike page
    client = http.createServer((request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><title>client</title><p id="callback">${request.url?.startsWith('/callback') ? 'callback reached' : 'client'}</p>`,
      );
    });
    await new Promise<void>((resolve) => client.listen(0, '127.0.0.1', resolve));
    clientPort = (client.address() as { port: number }).port;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    client?.close();
    await t?.close();
  });

  beforeEach(async () => {
    ({ page, errors, close: closePage } = await openPage(browser));
    cdp = await page.context().newCDPSession(page);
    authenticatorId = await addAuthenticator(cdp);
  });

  afterEach(async () => {
    await closePage();
    expect(errors).toEqual([]);
  });

  const alice = async () => (await t.app.indieweb.users!.findByName('alice'))!;
  const passkeysOf = async () => t.app.indieweb.passkeys!.list((await alice()).id);

  async function signInWithPassword(): Promise<void> {
    await page.goto(`${base}/indieweb/login/?return_to=${encodeURIComponent('/indieweb/admin/passkeys/')}`);
    await page.fill('#username', 'alice');
    await page.fill('#password', PASSWORD);
    await page.click('form[action="/indieweb/login/"] button[type=submit]');
    await page.waitForURL(`${base}/indieweb/admin/passkeys/`);
  }

  async function registerPasskey(name: string): Promise<void> {
    await page.goto(`${base}/indieweb/admin/passkeys/`);
    await page.fill('#passkey-name', name);
    await page.click('#passkey-add button[type=submit]');
    await expect(page.locator('.notice').textContent()).resolves.toBe('Passkey added.');
  }

  async function signOut(): Promise<void> {
    await page.click('nav button[type=submit]');
    await page.waitForURL(`${base}/indieweb/login/`);
  }

  /** Clicks "Sign in with a passkey" on the login page the browser shows. */
  async function clickPasskeySignIn(): Promise<void> {
    await page.click('#passkey-sign-in button[type=submit]');
  }

  async function removeAllPasskeys(): Promise<void> {
    const user = await alice();
    if (user.passwordless) await t.app.indieweb.passkeys!.setPasswordless(user.id, false);
    for (const passkey of await passkeysOf()) await t.app.indieweb.passkeys!.remove(user.id, passkey.id);
  }

  it('registers a passkey, signs out, signs in with it and approves an IndieAuth request', async () => {
    await removeAllPasskeys();
    await signInWithPassword();
    await registerPasskey('Test laptop');
    await expect(page.locator('table tbody tr td').first().textContent()).resolves.toBe('Test laptop');
    await expect(page.locator('table tbody tr td').nth(2).textContent()).resolves.toBe('never');
    await screenshot(page, 'admin-passkeys');
    expect(await seriousViolations(page)).toEqual([]);
    const [stored] = await passkeysOf();
    expect(stored).toMatchObject({ name: 'Test laptop', lastUsedAt: null });
    // what is stored is the public key: the authenticator keeps the private one
    const { credentials } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: VirtualCredential[] };
    expect(credentials.map((credential) => credential.credentialId.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''))).toEqual([
      stored!.credentialId,
    ]);
    expect(credentials[0]!.isResidentCredential).toBe(true);

    await signOut();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: `http://127.0.0.1:${clientPort}/`,
      redirect_uri: `http://127.0.0.1:${clientPort}/callback`,
      state: 'passkey-state',
      me: `${base}/`,
      scope: 'create',
      code_challenge: S256_CHALLENGE,
      code_challenge_method: 'S256',
    });
    await page.goto(`${base}/indieweb/auth/?${query.toString()}`);
    expect(new URL(page.url()).pathname).toBe('/indieweb/login/');
    await screenshot(page, 'login-passkey');
    expect(await seriousViolations(page)).toEqual([]);
    await clickPasskeySignIn();
    await page.waitForURL((url) => url.pathname === '/indieweb/auth/');
    await page.click('button[value=approve]');
    await page.waitForURL((url) => url.pathname === '/callback');
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe('passkey-state');
    expect(callback.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [used] = await passkeysOf();
    expect(used!.lastUsedAt).not.toBeNull();
  });

  it('refuses a copied passkey whose signature counter went backwards', async () => {
    await removeAllPasskeys();
    await signInWithPassword();
    await registerPasskey('Original');
    const { credentials } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: VirtualCredential[] };
    const copy = credentials[0]!;
    // the original is used: the server's counter moves past the copy's
    await signOut();
    await clickPasskeySignIn();
    await page.waitForURL(`${base}/indieweb/`);
    const counter = (await passkeysOf())[0]!.counter;
    expect(counter).toBeGreaterThan(copy.signCount);
    await signOut();

    // the copy, on another authenticator, still at the old count
    await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
    authenticatorId = await addAuthenticator(cdp);
    await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: copy });
    await clickPasskeySignIn();
    await page.waitForURL(`${base}/indieweb/login/passkey`);
    await expect(page.locator('#passkey-sign-in').locator('xpath=preceding-sibling::p[@role="alert"][1]').textContent()).resolves.toContain(
      'signature counter went backwards',
    );
    await screenshot(page, 'login-passkey-refused');
    expect((await passkeysOf())[0]!.counter).toBe(counter);
    const home = await t.app.inject({ method: 'GET', url: '/indieweb/' });
    expect(home.statusCode).toBe(303);
  });

  it('refuses a removed passkey, a replayed answer and an answer made for another site, each with its reason', async () => {
    await removeAllPasskeys();
    await signInWithPassword();
    await registerPasskey('Phone');
    await signOut();

    // a successful sign-in, its form post captured
    let posted = '';
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url() === `${base}/indieweb/login/passkey`) posted = request.postData() ?? '';
    });
    await clickPasskeySignIn();
    await page.waitForURL(`${base}/indieweb/`);
    const captured = new URLSearchParams(posted);
    expect(captured.get('response')).toBeTruthy();

    // replayed from another browser with a valid form of its own: the challenge was taken
    const jar = new CookieJar();
    const login = await t.app.inject({ method: 'GET', url: '/indieweb/login/' });
    jar.storeFrom(login);
    const replay = await t.app.inject({
      method: 'POST',
      url: '/indieweb/login/passkey',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({
        _csrf: hiddenField(login.body, '_csrf'),
        challenge_id: captured.get('challenge_id')!,
        response: captured.get('response')!,
        return_to: '/indieweb/',
      }),
    });
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain('This passkey request expired or was already used.');
    expect(replay.headers['set-cookie']?.toString() ?? '').not.toContain('indiestack_session=');

    // a look-alike page on another origin (the same host, another port: the RP ID matches, so the browser signs) gets
    // the browser to sign our challenge: refused for its origin
    const options = await t.app.inject({
      method: 'POST',
      url: '/indieweb/login/passkey/options',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ _csrf: hiddenField(login.body, '_csrf') }),
    });
    expect(options.statusCode).toBe(200);
    const start = options.json() as { challengeId: string; options: unknown };
    await page.goto(`http://localhost:${clientPort}/login`);
    await page.addScriptTag({ content: BUNDLE });
    const answer = await page.evaluate(
      async (optionsJSON) =>
        JSON.stringify(
          await (
            globalThis as unknown as { SimpleWebAuthnBrowser: { startAuthentication(o: unknown): Promise<unknown> } }
          ).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON }),
        ),
      start.options,
    );
    const phished = await t.app.inject({
      method: 'POST',
      url: '/indieweb/login/passkey',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({
        _csrf: hiddenField(login.body, '_csrf'),
        challenge_id: start.challengeId,
        response: answer,
        return_to: '/indieweb/',
      }),
    });
    expect(phished.statusCode).toBe(401);
    expect(phished.body).toContain('The passkey answered for another site.');
    expect(phished.headers['set-cookie']?.toString() ?? '').not.toContain('indiestack_session=');

    // removed in the admin: the authenticator still offers it, the server no longer knows it
    await page.goto(`${base}/indieweb/admin/passkeys/`);
    await page.click('form[action="/indieweb/admin/passkeys/remove"] button[type=submit]');
    await expect(page.locator('.notice').textContent()).resolves.toBe('Passkey removed.');
    await expect(page.locator('main').textContent()).resolves.toContain('No passkeys yet.');
    await signOut();
    await clickPasskeySignIn();
    await page.waitForURL(`${base}/indieweb/login/passkey`);
    await expect(page.locator('main').textContent()).resolves.toContain('This passkey is not registered here (it may have been removed).');
  });

  it('a ceremony the authenticator refuses (the person did not verify) says so on the page, and nothing is added', async () => {
    await removeAllPasskeys();
    await signInWithPassword();
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    await page.fill('#passkey-name', 'Not verified');
    await page.click('#passkey-add button[type=submit]');
    // the box is on the page from the start, empty: the script fills it when the ceremony ends
    await page.locator('#passkey-add [data-passkey-error]:not(:empty)').waitFor();
    await expect(page.locator('#passkey-add [data-passkey-error]').textContent()).resolves.toBe(
      'The passkey request was cancelled or timed out. Try again.',
    );
    await expect(page.locator('#passkey-name').inputValue()).resolves.toBe('Not verified');
    expect(await passkeysOf()).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('turns passkey-only sign-in on: the password is refused, the last passkey cannot be removed', async () => {
    await removeAllPasskeys();
    await signInWithPassword();
    // without a passkey the account would have no way in
    await page.click('form[action="/indieweb/admin/passkeys/passwordless"] button[type=submit]');
    await expect(page.locator('main .error').first().textContent()).resolves.toContain('Register a passkey first');
    await registerPasskey('Only key');
    await page.click('form[action="/indieweb/admin/passkeys/passwordless"] button[type=submit]');
    await expect(page.locator('.notice').textContent()).resolves.toBe('Your password no longer signs you in: only your passkeys do.');
    await page.click('form[action="/indieweb/admin/passkeys/remove"] button[type=submit]');
    await expect(page.locator('main .error').first().textContent()).resolves.toContain(
      'This is the last passkey of an account that signs in with passkeys only',
    );
    expect(await passkeysOf()).toHaveLength(1);
    await screenshot(page, 'admin-passkeys-last-refused');

    await signOut();
    await page.fill('#username', 'alice');
    await page.fill('#password', PASSWORD);
    await page.click('form[action="/indieweb/login/"] button[type=submit]');
    // issue 28 F9: the right password is answered like a wrong one (no oracle), with a hint that passkey-only accounts refuse every password
    await expect(page.locator('main .error').first().textContent()).resolves.toContain(
      'Sign-in failed. Check the user name and the password. (An account that signs in with passkeys only refuses every password',
    );
    await clickPasskeySignIn();
    await page.waitForURL(`${base}/indieweb/`);
    await t.app.indieweb.passkeys!.setPasswordless((await alice()).id, false);
  });
  it('issue 28 F6: a passkey-only account confirms with its passkey after 5 minutes; the change then goes through, and a stale session cannot add one', async () => {
    await removeAllPasskeys();
    await signInWithPassword();
    await registerPasskey('Confirming key');
    await page.click('form[action="/indieweb/admin/passkeys/passwordless"] button[type=submit]');
    await expect(page.locator('.notice').textContent()).resolves.toBe('Your password no longer signs you in: only your passkeys do.');

    // five minutes later the forms are gone: the page offers the confirmation step instead
    t.clock.advance(301);
    await page.goto(`${base}/indieweb/admin/passkeys/`);
    expect(await page.locator('#passkey-add').count()).toBe(0);
    await page.click(`a[href^="/indieweb/admin/confirm/"]`);
    await page.waitForURL((url) => url.pathname === '/indieweb/admin/confirm/');
    expect(await page.locator('input[name="password"]').count()).toBe(0);
    await screenshot(page, 'admin-confirm-passkey');
    expect(await seriousViolations(page)).toEqual([]);
    await page.click('#passkey-confirm button[type=submit]');
    await page.waitForURL(`${base}/indieweb/admin/passkeys/`);
    await expect(page.locator('#passkey-add').count()).resolves.toBe(1);
    await page.click('form[action="/indieweb/admin/passkeys/passwordless"] button[type=submit]');
    await expect(page.locator('.notice').textContent()).resolves.toBe('Your password signs you in again.');

    // the session cookie copied into another browser, five minutes on: no ceremony can even start
    t.clock.advance(301);
    const cookies = await page.context().cookies();
    const { page: other, close } = await openPage(browser);
    try {
      await other.context().addCookies(cookies);
      await other.goto(`${base}/indieweb/admin/passkeys/`);
      expect(await other.locator('#passkey-add').count()).toBe(0);
      await expect(other.locator('main').textContent()).resolves.toContain("Confirm it's you");
    } finally {
      await close();
    }
    expect(await passkeysOf()).toHaveLength(1);
  });

  it('issue 28 F8: an answer that signed someone in is refused by another instance sharing the database (single use everywhere)', async () => {
    await removeAllPasskeys();
    await signInWithPassword();
    await registerPasskey('Replayed key');
    await signOut();
    let posted = '';
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url() === `${base}/indieweb/login/passkey`) posted = request.postData() ?? '';
    });
    await clickPasskeySignIn();
    await page.waitForURL(`${base}/indieweb/`);
    const captured = new URLSearchParams(posted);
    // as a synced passkey (no signature counter) would: the counter check alone would let the replay in
    await t.database.db.updateTable('indieweb_passkey').set({ counter: 0 }).execute();
    // a second instance: same secret, same database, its own memory
    const { app: second } = await createServer({ config: t.config, database: t.database, clock: t.clock, logger: false, worker: false });
    try {
      await second.ready();
      const jar = new CookieJar();
      const login = await second.inject({ method: 'GET', url: '/indieweb/login/' });
      jar.storeFrom(login);
      const replay = await second.inject({
        method: 'POST',
        url: '/indieweb/login/passkey',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({
          _csrf: hiddenField(login.body, '_csrf'),
          challenge_id: captured.get('challenge_id')!,
          response: captured.get('response')!,
          return_to: '/indieweb/',
        }),
      });
      expect(replay.statusCode).toBe(400);
      expect(replay.body).toContain('This passkey request expired or was already used.');
      expect(replay.headers['set-cookie']?.toString() ?? '').not.toContain('indiestack_session=');
    } finally {
      await second.close();
    }
  });
});
