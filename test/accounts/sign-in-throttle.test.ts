/**
 * Issue 23 #6: wrong passwords from one client were answered 401 at ~19/s with
 * no delay. The sign-in form and the account page's password change now count
 * failures per client address and per account name (the same whether or not
 * the account exists) and answer 429 with Retry-After, without hashing, until
 * the backoff has passed (docs/security.md "Throttles").
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, CookieJar, form, hiddenField, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';

const ADMIN = '/indieweb/admin';
const passwordOf = (name: string) => `${name} password 1`;
const WRONG = 'not the password at all';
const FAILED = 'Sign-in failed. Check the user name and the password.';
const waitMessage = (seconds: number) =>
  `Too many failed attempts. Wait ${seconds} ${seconds === 1 ? 'second' : 'seconds'}, then try again.`;

/** The sign-in form as a browser at `address` uses it: the page, then the form posted with its CSRF token. */
async function signInFrom(
  t: TestApp,
  address: string,
  username: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const jar = new CookieJar();
  const page = await t.app.inject({ method: 'GET', url: '/indieweb/login/', remoteAddress: address, headers });
  jar.storeFrom(page);
  return t.app.inject({
    method: 'POST',
    url: '/indieweb/login/',
    remoteAddress: address,
    headers: { ...headers, cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ _csrf: hiddenField(page.body, '_csrf'), username, password, return_to: '/indieweb/' }),
  });
}

async function addUsers(t: TestApp, names: readonly string[]): Promise<void> {
  const users = t.app.indieweb.users!;
  for (const name of names) await users.addUser({ name, me: [`https://${name}.example/`], password: passwordOf(name) });
}

/** Counts the password checks the routes run (each one is a scrypt computation). */
function countPasswordChecks(t: TestApp) {
  return vi.spyOn(t.app.indieweb.users!, 'authenticate');
}

/** The page with the per-request parts (CSRF token, typed user name) taken out. */
function comparable(body: string, username: string): string {
  return body.replace(/name="_csrf" value="[^"]*"/g, 'name="_csrf" value=""').replace(`value="${username}"`, 'value=""');
}

function expectThrottled(response: LightMyRequestResponse, seconds: number): void {
  expect(response.statusCode).toBe(429);
  expect(response.headers['retry-after']).toBe(String(seconds));
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.body).toContain(`<p class="error" role="alert">${waitMessage(seconds)}</p>`);
  expect(response.body).not.toContain(FAILED);
  expect(response.body).not.toContain(WRONG);
  expect(response.headers['set-cookie'] ?? '').not.toContain('indiestack_session=');
}

/**
 * The throttle counts in the process's memory (core/throttle.ts); the database only holds the accounts whose
 * passwords are checked. So on PostgreSQL the tests that sign in, fail and sign in again (the user lookups
 * behind each answer) run; the ones about the counting itself — doubling, keys, addresses, parallel attempts —
 * run once, on SQLite: each wrong password is a scrypt check (~125 ms of CPU).
 */
describe.each(DIALECTS)('POST /indieweb/login/ throttle (%s)', (dialect) => {
  /** A test of the counting itself: once, on SQLite (see above). */
  const countingTest = it.runIf(dialect === 'sqlite');
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ dialect });
    await addUsers(t, ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'ivan']);
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('429 with Retry-After on the 6th wrong password from one address, without checking the password; the form keeps the user name', async () => {
    for (let i = 0; i < 5; i++) expect((await signInFrom(t, '198.51.100.1', 'alice', WRONG)).statusCode).toBe(401);
    const checks = countPasswordChecks(t);
    const sixth = await signInFrom(t, '198.51.100.1', 'alice', WRONG);
    expectThrottled(sixth, 1);
    expect(sixth.body).toContain('name="username" autocomplete="username" autocapitalize="none" required value="alice"');
    expect(sixth.body).toContain('<form method="post" action="/indieweb/login/">');
    expect(checks).not.toHaveBeenCalled();
  });

  it('429 the same way for an unknown user name: same status, same headers, same page', async () => {
    const answers: LightMyRequestResponse[] = [];
    for (const [address, name] of [
      ['198.51.100.2', 'bob'],
      ['198.51.100.3', 'nobody'],
    ] as const) {
      for (let i = 0; i < 5; i++) expect((await signInFrom(t, address, name, WRONG)).statusCode).toBe(401);
      answers.push(await signInFrom(t, address, name, WRONG));
    }
    const [known, unknown] = answers as [LightMyRequestResponse, LightMyRequestResponse];
    expectThrottled(known, 1);
    expectThrottled(unknown, 1);
    expect(Object.keys(unknown.headers).sort()).toEqual(Object.keys(known.headers).sort());
    expect(comparable(unknown.body, 'nobody')).toBe(comparable(known.body, 'bob'));
  });

  it('the right password is refused too while the wait lasts; after it, it signs in and the account starts afresh', async () => {
    for (let i = 0; i < 5; i++) await signInFrom(t, '198.51.100.4', 'carol', WRONG);
    const checks = countPasswordChecks(t);
    expectThrottled(await signInFrom(t, '198.51.100.4', 'carol', passwordOf('carol')), 1);
    expectThrottled(await signInFrom(t, '198.51.100.5', 'carol', passwordOf('carol')), 1);
    expect(checks).not.toHaveBeenCalled();
    t.clock.advance(1);
    const signedIn = await signInFrom(t, '198.51.100.5', 'carol', passwordOf('carol'));
    expect(signedIn.statusCode).toBe(303);
    expect(String(signedIn.headers['set-cookie'])).toContain('indiestack_session=');
    // the success cleared the account's count: five more free failures from a fresh address
    for (let i = 0; i < 5; i++) expect((await signInFrom(t, '198.51.100.6', 'carol', WRONG)).statusCode).toBe(401);
    expectThrottled(await signInFrom(t, '198.51.100.6', 'carol', WRONG), 1);
  });

  countingTest('the wait doubles with every further failure: 1 s, 2 s, 4 s', async () => {
    for (let i = 0; i < 5; i++) await signInFrom(t, '198.51.100.7', 'dave', WRONG);
    for (const seconds of [1, 2, 4]) {
      expectThrottled(await signInFrom(t, '198.51.100.7', 'dave', WRONG), seconds);
      t.clock.advance(seconds);
      expect((await signInFrom(t, '198.51.100.7', 'dave', WRONG)).statusCode).toBe(401);
    }
    expectThrottled(await signInFrom(t, '198.51.100.7', 'dave', WRONG), 8);
  });

  countingTest('another address signing in to another account is unaffected', async () => {
    for (let i = 0; i < 5; i++) await signInFrom(t, '198.51.100.8', 'ivan', WRONG);
    expectThrottled(await signInFrom(t, '198.51.100.8', 'ivan', WRONG), 1);
    expect((await signInFrom(t, '198.51.100.9', 'frank', WRONG)).statusCode).toBe(401);
    expect((await signInFrom(t, '198.51.100.9', 'frank', passwordOf('frank'))).statusCode).toBe(303);
  });

  countingTest('the account key catches wrong passwords spread over many addresses', async () => {
    for (let i = 1; i <= 5; i++) expect((await signInFrom(t, `203.0.113.${i}`, 'erin', WRONG)).statusCode).toBe(401);
    expectThrottled(await signInFrom(t, '203.0.113.6', 'erin', WRONG), 1);
    expectThrottled(await signInFrom(t, '203.0.113.7', 'ERIN', passwordOf('erin')), 1);
  });

  countingTest('the address key catches one address trying many user names; IPv6 addresses count by their /64', async () => {
    for (let i = 1; i <= 5; i++) expect((await signInFrom(t, '192.0.2.9', `guess${i}`, WRONG)).statusCode).toBe(401);
    expectThrottled(await signInFrom(t, '192.0.2.9', 'guess6', WRONG), 1);
    for (let i = 1; i <= 5; i++) expect((await signInFrom(t, `2001:db8:9:9::${i}`, `v6guess${i}`, WRONG)).statusCode).toBe(401);
    expectThrottled(await signInFrom(t, '2001:db8:9:9:ffff::1', 'v6guess6', WRONG), 1);
    expect((await signInFrom(t, '2001:db8:9:10::1', 'v6guess7', WRONG)).statusCode).toBe(401);
  });

  countingTest('64 parallel wrong passwords from one address: 5 are checked, 59 get 429 at once', async () => {
    const checks = countPasswordChecks(t);
    const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => signInFrom(t, '192.0.2.64', `parallel${i}`, WRONG)));
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(59);
    expect(checks).toHaveBeenCalledTimes(5);
  });

  countingTest('X-Forwarded-For does not change the address key while INDIEWEB_TRUST_PROXY is off', async () => {
    for (let i = 1; i <= 5; i++) await signInFrom(t, '192.0.2.77', `forwarded${i}`, WRONG, { 'x-forwarded-for': `203.0.113.${100 + i}` });
    expectThrottled(await signInFrom(t, '192.0.2.77', 'forwarded6', WRONG, { 'x-forwarded-for': '203.0.113.200' }), 1);
  });
});

describe('sign-in throttle behind a trusted proxy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts the client address the proxy forwards, not the proxy', async () => {
    for (let i = 1; i <= 6; i++) {
      expect((await signInFrom(t, '10.0.0.1', `client${i}`, WRONG, { 'x-forwarded-for': `203.0.113.${i}` })).statusCode).toBe(401);
    }
    for (let i = 1; i <= 5; i++) await signInFrom(t, '10.0.0.1', `same${i}`, WRONG, { 'x-forwarded-for': '203.0.113.50' });
    expectThrottled(await signInFrom(t, '10.0.0.1', 'same6', WRONG, { 'x-forwarded-for': '203.0.113.50' }), 1);
  });
});

describe('INDIEWEB_SIGNIN_FREE_ATTEMPTS=none', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_SIGNIN_FREE_ATTEMPTS: 'none' } });
    await addUsers(t, ['alice']);
  });
  afterAll(async () => {
    await t.close();
  });

  // 20 is four times the free attempts; test/accounts/hash-bound.test.ts sends 64 at once with the throttle off
  it('401 for 20 wrong passwords from one address, and the right one still signs in', { timeout: 180_000 }, async () => {
    const jar = new CookieJar();
    const page = await t.app.inject({ method: 'GET', url: '/indieweb/login/' });
    jar.storeFrom(page);
    const csrf = hiddenField(page.body, '_csrf');
    const attempt = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/indieweb/login/',
        remoteAddress: '198.51.100.200',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ _csrf: csrf, username: 'alice', password }),
      });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(`${WRONG} ${i}`)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array.from({ length: 20 }, () => 401));
    expect(answers.every((answer) => answer.headers['retry-after'] === undefined)).toBe(true);
    expect((await attempt(passwordOf('alice'))).statusCode).toBe(303);
  });
});

describe.each(DIALECTS)('POST /indieweb/admin/account/password throttle (%s)', (dialect) => {
  /** A test of the counting itself: once, on SQLite (see above). */
  const countingTest = it.runIf(dialect === 'sqlite');
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ dialect });
    await addUsers(t, ['grace', 'heidi']);
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Signs in from `address`; returns a function that submits the password change form from there. */
  async function passwordFormAt(address: string, name: string) {
    const signedIn = await signInFrom(t, address, name, passwordOf(name));
    expect(signedIn.statusCode).toBe(303);
    const jar = new CookieJar();
    jar.storeFrom(signedIn);
    return async (current: string, next = 'a brand new password') => {
      const page = await t.app.inject({
        method: 'GET',
        url: `${ADMIN}/account/`,
        remoteAddress: address,
        headers: { cookie: jar.header() },
      });
      expect(page.statusCode).toBe(200);
      jar.storeFrom(page);
      return t.app.inject({
        method: 'POST',
        url: `${ADMIN}/account/password`,
        remoteAddress: address,
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: form({ _csrf: hiddenField(page.body, '_csrf'), current, new: next, confirm: next }),
      });
    };
  }

  it('429 with Retry-After after 5 wrong current passwords, without checking; the right one waits too, then changes the password', async () => {
    const change = await passwordFormAt('198.51.100.30', 'grace');
    for (let i = 0; i < 5; i++) {
      const wrong = await change(WRONG);
      expect(wrong.statusCode).toBe(400);
      expect(wrong.body).toContain('The current password is not right.');
    }
    const checks = countPasswordChecks(t);
    for (const current of [WRONG, passwordOf('grace')]) {
      const refused = await change(current);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body).toContain(`<h2>Change password</h2><p class="error" role="alert">${waitMessage(1)}</p>`);
      expect(refused.body).not.toContain(WRONG);
      expect(refused.body).not.toContain(passwordOf('grace'));
    }
    expect(checks).not.toHaveBeenCalled();
    t.clock.advance(1);
    const changed = await change(passwordOf('grace'));
    expect(changed.statusCode).toBe(303);
    expect((await signInFrom(t, '198.51.100.31', 'grace', 'a brand new password')).statusCode).toBe(303);
  });

  countingTest(
    'shares the account key with sign-in: wrong current passwords make sign-in to that account wait, from anywhere',
    async () => {
      const change = await passwordFormAt('198.51.100.32', 'heidi');
      for (let i = 0; i < 5; i++) expect((await change(WRONG)).statusCode).toBe(400);
      expectThrottled(await signInFrom(t, '198.51.100.33', 'heidi', passwordOf('heidi')), 1);
    },
  );
});
