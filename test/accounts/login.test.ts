import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserService } from '../../src/accounts/user-service.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { SESSION_COOKIE } from '../../src/accounts/session.js';
import { buildTestApp, CookieJar, form, hiddenField, signIn, type TestApp } from '../helpers/app.js';
import { sessionFor } from '../helpers/users.js';

const PASSWORD = 'correct horse battery';

describe('sign-in pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    const users = createUserService({ users: createUsersRepository(t.database.db), clock: t.clock });
    await users.addUser({ name: 'alice', me: ['https://alice.example/'], password: PASSWORD });
    await users.addUser({ name: 'mallory', me: ['https://mallory.example/'], password: PASSWORD });
    await users.setActive('mallory', false);
  });
  afterAll(async () => {
    await t.close();
  });

  async function loginPage(jar: CookieJar, query = '') {
    const page = await t.app.inject({ method: 'GET', url: `/indieweb/login/${query}`, headers: { cookie: jar.header() } });
    jar.storeFrom(page);
    return page;
  }

  async function submit(jar: CookieJar, fields: Record<string, string>) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/indieweb/login/',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form(fields),
    });
    jar.storeFrom(response);
    return response;
  }

  describe('GET /indieweb/login/', () => {
    it('200 shows a form with a CSRF token, a strict CSP and no framing', async () => {
      const page = await loginPage(new CookieJar());
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('<form method="post" action="/indieweb/login/">');
      expect(hiddenField(page.body, '_csrf')).toMatch(/\./);
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['cache-control']).toBe('no-store');
    });

    it('200 escapes a return_to it does not trust and falls back to the home page', async () => {
      const page = await loginPage(new CookieJar(), '?return_to=%22%3E%3Cscript%3Ealert(1)%3C/script%3E');
      expect(page.body).not.toContain('<script>');
      expect(hiddenField(page.body, 'return_to')).toBe('/indieweb/');
    });
  });

  describe('POST /indieweb/login/', () => {
    it('303 to the return path with an HttpOnly, SameSite=Lax session cookie on success', async () => {
      const jar = new CookieJar();
      const page = await loginPage(jar, '?return_to=/indieweb/auth/%3Fme%3Dx');
      const response = await submit(jar, {
        _csrf: hiddenField(page.body, '_csrf'),
        username: 'alice',
        password: PASSWORD,
        return_to: hiddenField(page.body, 'return_to'),
      });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('http://indiestack.test/indieweb/auth/?me=x');
      const cookie = ([] as string[]).concat(response.headers['set-cookie'] as string[]).find((c) => c.startsWith('indiestack_session='));
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).not.toMatch(/Secure/);
      const home = await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: jar.header() } });
      expect(home.statusCode).toBe(200);
      expect(home.body).toContain('Signed in as alice');
      expect(home.body).toContain('https://alice.example/');
      // the way on from here: every admin page, and the tags for the homepage, escaped as text
      for (const page of ['profile', 'apps', 'webmentions', 'media', 'account'])
        expect(home.body).toContain(`href="http://indiestack.test/indieweb/admin/${page}/"`);
      expect(home.body).toContain('&lt;link rel=&quot;micropub&quot; href=&quot;http://indiestack.test/indieweb/micropub/&quot;&gt;');
    });

    it.each([['//evil.example/'], ['https://evil.example/'], ['/\\evil.example'], ['javascript:alert(1)']])(
      '303 to the home page, never to the foreign return_to %s',
      async (returnTo) => {
        const jar = new CookieJar();
        const page = await loginPage(jar);
        const response = await submit(jar, {
          _csrf: hiddenField(page.body, '_csrf'),
          username: 'alice',
          password: PASSWORD,
          return_to: returnTo,
        });
        expect(response.statusCode).toBe(303);
        expect(response.headers.location).toBe('http://indiestack.test/indieweb/');
      },
    );

    it('401 with the same generic message for a wrong password and for an unknown user', async () => {
      const jar = new CookieJar();
      const page = await loginPage(jar);
      const csrf = hiddenField(page.body, '_csrf');
      const wrongPassword = await submit(jar, { _csrf: csrf, username: 'alice', password: 'not the password', return_to: '/indieweb/' });
      const unknownUser = await submit(jar, { _csrf: csrf, username: 'nobody', password: 'not the password', return_to: '/indieweb/' });
      for (const response of [wrongPassword, unknownUser]) {
        expect(response.statusCode).toBe(401);
        expect(response.body).toContain('Sign-in failed. Check the user name and the password.');
        expect(response.headers['set-cookie'] ?? '').not.toContain('indiestack_session=');
      }
    });

    it('401 for a disabled account with the right password', async () => {
      const jar = new CookieJar();
      const page = await loginPage(jar);
      const response = await submit(jar, {
        _csrf: hiddenField(page.body, '_csrf'),
        username: 'mallory',
        password: PASSWORD,
        return_to: '/indieweb/',
      });
      expect(response.statusCode).toBe(401);
    });

    it('403 without a valid CSRF token, and no session', async () => {
      const jar = new CookieJar();
      await loginPage(jar);
      const missing = await submit(jar, { username: 'alice', password: PASSWORD });
      const forged = await submit(jar, { _csrf: 'abc.def', username: 'alice', password: PASSWORD });
      const otherBrowser = new CookieJar();
      const page = await loginPage(otherBrowser);
      const stolen = await submit(jar, { _csrf: hiddenField(page.body, '_csrf'), username: 'alice', password: PASSWORD });
      for (const response of [missing, forged, stolen]) {
        expect(response.statusCode).toBe(403);
        expect(jar.get('indiestack_session')).toBeUndefined();
      }
    });

    it('403 when the CSRF token is older than its lifetime', async () => {
      const jar = new CookieJar();
      const page = await loginPage(jar);
      t.clock.advance(5 * 3600);
      const response = await submit(jar, { _csrf: hiddenField(page.body, '_csrf'), username: 'alice', password: PASSWORD });
      expect(response.statusCode).toBe(403);
    });

    it('4xx, never 500, for repeated fields, NUL bytes, huge values and a JSON body', async () => {
      const jar = new CookieJar();
      const page = await loginPage(jar);
      const csrf = hiddenField(page.body, '_csrf');
      const repeated = await t.app.inject({
        method: 'POST',
        url: '/indieweb/login/',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: `_csrf=${encodeURIComponent(csrf)}&username=alice&username=bob&password=x`,
      });
      expect(repeated.statusCode).toBe(401);
      const nul = await submit(jar, { _csrf: csrf, username: 'ali\u0000ce', password: `${PASSWORD}\u0000` });
      expect(nul.statusCode).toBe(401);
      const huge = await submit(jar, { _csrf: csrf, username: 'a'.repeat(100_000), password: 'b'.repeat(100_000) });
      expect(huge.statusCode).toBe(401);
      const json = await t.app.inject({
        method: 'POST',
        url: '/indieweb/login/',
        headers: { cookie: jar.header(), 'content-type': 'application/json' },
        payload: '{"username":',
      });
      expect(json.statusCode).toBe(400);
      const xml = await t.app.inject({
        method: 'POST',
        url: '/indieweb/login/',
        headers: { cookie: jar.header(), 'content-type': 'text/xml' },
        payload: '<a/>',
      });
      expect(xml.statusCode).toBe(415);
    });
  });

  describe('GET /indieweb/', () => {
    it('303 to the login page with the return path when not signed in', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/indieweb/' });
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('http://indiestack.test/indieweb/login/?return_to=%2Findieweb%2F');
    });

    it('303 to the login page for a tampered session cookie', async () => {
      const jar = await signIn(t.app, 'alice', PASSWORD);
      const tampered = jar.header().replace(/indiestack_session=([^;]*)/, (_m, v: string) => `indiestack_session=${v.slice(0, -2)}xx`);
      const response = await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: tampered } });
      expect(response.statusCode).toBe(303);
    });
  });

  describe('POST /indieweb/logout/', () => {
    /** The sign-out page, then its form submitted with its CSRF token. */
    async function signOut(jar: CookieJar) {
      const page = await t.app.inject({ method: 'GET', url: '/indieweb/logout/', headers: { cookie: jar.header() } });
      expect(page.statusCode).toBe(200);
      return t.app.inject({
        method: 'POST',
        url: '/indieweb/logout/',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ _csrf: hiddenField(page.body, '_csrf') }),
      });
    }

    it('303 to the login page and the session cookie is cleared', async () => {
      const jar = await signIn(t.app, 'alice', PASSWORD);
      const response = await signOut(jar);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('http://indiestack.test/indieweb/login/');
      jar.storeFrom(response);
      expect(jar.get('indiestack_session')).toBeUndefined();
      expect((await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: jar.header() } })).statusCode).toBe(303);
    });

    it('a copy of the cookie taken before sign-out opens nothing afterwards (issue 23 #9)', async () => {
      const jar = await signIn(t.app, 'alice', PASSWORD);
      const copied = jar.header();
      expect((await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: copied } })).statusCode).toBe(200);
      const response = await signOut(jar);
      expect(response.statusCode).toBe(303);
      const reused = await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: copied } });
      expect(reused.statusCode).toBe(303);
      expect(reused.headers.location).toContain('/indieweb/login/');
    });

    it('403 without the CSRF token, and the session stays', async () => {
      const jar = await signIn(t.app, 'alice', PASSWORD);
      const response = await t.app.inject({
        method: 'POST',
        url: '/indieweb/logout/',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
      expect(response.statusCode).toBe(403);
      expect((await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: jar.header() } })).statusCode).toBe(200);
    });
  });

  describe('session lifetime', () => {
    it('ends every session when the password changes or the account is disabled', async () => {
      const users = createUserService({ users: createUsersRepository(t.database.db), clock: t.clock });
      const jar = await signIn(t.app, 'alice', PASSWORD);
      const home = () => t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: jar.header() } });
      expect((await home()).statusCode).toBe(200);
      await users.setPassword('alice', `${PASSWORD}!`);
      expect((await home()).statusCode).toBe(303);
      const again = await signIn(t.app, 'alice', `${PASSWORD}!`);
      await users.setActive('alice', false);
      expect((await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: again.header() } })).statusCode).toBe(303);
      await users.setActive('alice', true);
      await users.setPassword('alice', PASSWORD);
    });

    // the other test files sign their users in with test/helpers/users.ts's sessionFor, not the form: it must stay
    // exactly what the form gives (the same claims, so the same signed value at the same moment)
    it('the form sets the session cookie the test helpers give their users', async () => {
      const alice = (await t.app.indieweb.users!.findByName('alice'))!;
      const viaForm = await signIn(t.app, 'alice', PASSWORD);
      const viaHelper = await sessionFor(t, alice, PASSWORD);
      expect(viaForm.get(SESSION_COOKIE)).toMatch(/\S{20,}/);
      expect(viaHelper.get(SESSION_COOKIE)).toBe(viaForm.get(SESSION_COOKIE));
    });

    it('a session expires after 14 days', async () => {
      const jar = await signIn(t.app, 'alice', PASSWORD);
      t.clock.advance(14 * 24 * 3600 + 1);
      expect((await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: jar.header() } })).statusCode).toBe(303);
    });
  });
});

describe('sign-in over https', () => {
  it('marks the session cookie Secure when the base URL is https', async () => {
    const t = await buildTestApp({ env: { INDIEWEB_BASE_URL: 'https://id.example' } });
    try {
      const users = createUserService({ users: createUsersRepository(t.database.db), clock: t.clock });
      await users.addUser({ name: 'alice', me: ['https://alice.example/'], password: PASSWORD });
      const jar = new CookieJar();
      const page = await t.app.inject({ method: 'GET', url: '/indieweb/login/' });
      jar.storeFrom(page);
      const response = await t.app.inject({
        method: 'POST',
        url: '/indieweb/login/',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ _csrf: hiddenField(page.body, '_csrf'), username: 'alice', password: PASSWORD }),
      });
      expect(response.statusCode).toBe(303);
      const cookies = ([] as string[]).concat(response.headers['set-cookie'] as string[]);
      expect(cookies.find((c) => c.startsWith('indiestack_session='))).toMatch(/; Secure/);
    } finally {
      await t.close();
    }
  });
});
