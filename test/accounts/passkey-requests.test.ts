import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CookieJar, form, hiddenField, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { addAlice } from '../helpers/indieauth.js';

const BASE = 'http://indiestack.test';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** An answer shaped like a browser's, carrying the given client data, signed by nobody. */
function forgedAnswer(clientData: Record<string, unknown>, id = 'AAAA'): string {
  const clientDataJSON = Buffer.from(JSON.stringify(clientData)).toString('base64url');
  return JSON.stringify({
    id,
    rawId: id,
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON, authenticatorData: 'AAAA', signature: 'AAAA' },
  });
}

for (const dialect of DIALECTS) {
  describe(`passkey sign-in requests (${dialect})`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await buildTestApp({ dialect });
      await addAlice(t);
    });
    afterAll(async () => t?.close());

    /** A browser on the login page: its cookies and the page's CSRF token. */
    async function loginPage(): Promise<{ jar: CookieJar; csrf: string; body: string; csp: string }> {
      const jar = new CookieJar();
      const page = await t.app.inject({ method: 'GET', url: '/indieweb/login/' });
      jar.storeFrom(page);
      return { jar, csrf: hiddenField(page.body, '_csrf'), body: page.body, csp: String(page.headers['content-security-policy']) };
    }

    async function start(
      jar: CookieJar,
      csrf: string,
    ): Promise<{ challengeId: string; options: { challenge: string; rpId: string; userVerification: string } }> {
      const response = await t.app.inject({
        method: 'POST',
        url: '/indieweb/login/passkey/options',
        headers: { ...FORM, cookie: jar.header() },
        payload: form({ _csrf: csrf }),
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      return response.json();
    }

    function finish(jar: CookieJar, fields: Record<string, string>) {
      return t.app.inject({
        method: 'POST',
        url: '/indieweb/login/passkey',
        headers: { ...FORM, cookie: jar.header() },
        payload: form({ return_to: '/indieweb/', ...fields }),
      });
    }

    it('the login page loads exactly our two scripts, allowed by name in the CSP, and no inline script', async () => {
      const { body, csp } = await loginPage();
      expect(csp).toContain(`script-src ${BASE}/indieweb/assets/simplewebauthn-browser.js ${BASE}/indieweb/assets/passkeys.js;`);
      expect(csp).toContain(`connect-src ${BASE}/indieweb/login/passkey/options;`);
      expect(csp).not.toContain('unsafe');
      expect(body.match(/<script[^>]*>/g)).toEqual([
        `<script src="${BASE}/indieweb/assets/simplewebauthn-browser.js" defer>`,
        `<script src="${BASE}/indieweb/assets/passkeys.js" defer>`,
      ]);
      for (const asset of ['simplewebauthn-browser.js', 'passkeys.js']) {
        const script = await t.app.inject({ method: 'GET', url: `/indieweb/assets/${asset}` });
        expect(script.statusCode).toBe(200);
        expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
        expect(script.headers['x-content-type-options']).toBe('nosniff');
      }
      expect((await t.app.inject({ method: 'GET', url: '/indieweb/assets/simplewebauthn-browser.js' })).body).toContain(
        'SimpleWebAuthnBrowser',
      );
    });

    it('200 options for the base URL host with user verification required; 403 without the CSRF token', async () => {
      const { jar, csrf } = await loginPage();
      const { challengeId, options } = await start(jar, csrf);
      expect(challengeId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(options).toMatchObject({ rpId: 'indiestack.test', userVerification: 'required' });
      const refused = await t.app.inject({
        method: 'POST',
        url: '/indieweb/login/passkey/options',
        headers: { ...FORM, cookie: jar.header() },
        payload: form({ _csrf: 'forged' }),
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ error: 'The page expired. Reload it and try again.' });
    });

    it('400 "needs JavaScript" for the form posted without an answer (JavaScript off); 403 without the CSRF token', async () => {
      const { jar, csrf } = await loginPage();
      const noScript = await finish(jar, { _csrf: csrf, challenge_id: '', response: '' });
      expect(noScript.statusCode).toBe(400);
      expect(noScript.body).toContain('Signing in with a passkey needs JavaScript in this browser.');
      const forged = await finish(jar, { _csrf: 'forged', challenge_id: 'x', response: '{}' });
      expect(forged.statusCode).toBe(403);
      expect(forged.body).toContain('The form expired.');
    });

    it.each([
      ['not JSON', 'not json'],
      ['JSON without a response', '{"id":"x"}'],
      ['client data that is not base64url JSON', JSON.stringify({ id: 'x', response: { clientDataJSON: '!!!' } })],
      ['an answer over 64 KiB', 'x'.repeat(70 * 1024)],
    ])('400 "could not be read", never 500, for %s', async (_case, response) => {
      const { jar, csrf } = await loginPage();
      const { challengeId } = await start(jar, csrf);
      const answer = await finish(jar, { _csrf: csrf, challenge_id: challengeId, response });
      expect(answer.statusCode).toBe(400);
      expect(answer.body).toContain('The answer of your passkey could not be read. Try again.');
      expect(answer.headers['set-cookie']?.toString() ?? '').not.toContain('indiestack_session=');
    });

    it('a challenge is taken once: the first answer is judged (401 unknown passkey), the same again is 400 "already used"', async () => {
      const { jar, csrf } = await loginPage();
      const { challengeId, options } = await start(jar, csrf);
      const response = forgedAnswer({ type: 'webauthn.get', challenge: options.challenge, origin: BASE });
      const first = await finish(jar, { _csrf: csrf, challenge_id: challengeId, response });
      expect(first.statusCode).toBe(401);
      expect(first.body).toContain('This passkey is not registered here (it may have been removed).');
      const again = await finish(jar, { _csrf: csrf, challenge_id: challengeId, response });
      expect(again.statusCode).toBe(400);
      expect(again.body).toContain('This passkey request expired or was already used. Try again.');
    });

    it('400 "expired" for an answer after the challenge lifetime (300 s)', async () => {
      const { jar, csrf } = await loginPage();
      const { challengeId, options } = await start(jar, csrf);
      t.clock.advance(301);
      const late = await finish(jar, {
        _csrf: csrf,
        challenge_id: challengeId,
        response: forgedAnswer({ type: 'webauthn.get', challenge: options.challenge, origin: BASE }),
      });
      expect(late.statusCode).toBe(400);
      expect(late.body).toContain('This passkey request expired or was already used.');
    });

    it('401 "another site" for client data from another origin, 400 for an answer to another challenge', async () => {
      const { jar, csrf } = await loginPage();
      const first = await start(jar, csrf);
      const phished = await finish(jar, {
        _csrf: csrf,
        challenge_id: first.challengeId,
        response: forgedAnswer({
          type: 'webauthn.get',
          challenge: first.options.challenge,
          origin: 'https://indiestack.test.evil.example',
        }),
      });
      expect(phished.statusCode).toBe(401);
      expect(phished.body).toContain('The passkey answered for another site.');
      const second = await start(jar, csrf);
      const third = await start(jar, csrf);
      const swapped = await finish(jar, {
        _csrf: csrf,
        challenge_id: second.challengeId,
        response: forgedAnswer({ type: 'webauthn.get', challenge: third.options.challenge, origin: BASE }),
      });
      expect(swapped.statusCode).toBe(400);
      expect(swapped.body).toContain('This passkey request expired or was already used.');
    });
  });
}

describe('admin Passkeys page requests', () => {
  let t: TestApp;
  let jar: CookieJar;

  beforeAll(async () => {
    t = await buildTestApp();
    jar = await addAlice(t);
  });
  afterAll(async () => t?.close());

  async function page(): Promise<{ csrf: string; body: string; csp: string }> {
    const response = await t.app.inject({ method: 'GET', url: '/indieweb/admin/passkeys/', headers: { cookie: jar.header() } });
    jar.storeFrom(response);
    expect(response.statusCode).toBe(200);
    return { csrf: hiddenField(response.body, '_csrf'), body: response.body, csp: String(response.headers['content-security-policy']) };
  }

  const post = (url: string, fields: Record<string, string>) =>
    t.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: jar.header() }, payload: form(fields) });

  it('303 to sign in without a session; the page names its scripts in the CSP', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/indieweb/admin/passkeys/' });
    expect(anonymous.statusCode).toBe(303);
    const { csp, body } = await page();
    expect(csp).toContain(`connect-src ${BASE}/indieweb/admin/passkeys/options;`);
    expect(body).toContain('No passkeys yet.');
    expect(body).toContain('<a href="/indieweb/admin/passkeys/" aria-current="page">Passkeys</a>');
  });

  it('200 registration options for the signed-in user behind the CSRF token, 403 without it', async () => {
    const { csrf } = await page();
    const options = await post('/indieweb/admin/passkeys/options', { _csrf: csrf });
    expect(options.statusCode).toBe(200);
    expect(options.json().options).toMatchObject({
      rp: { id: 'indiestack.test' },
      user: { name: 'alice' },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    expect((await post('/indieweb/admin/passkeys/options', { _csrf: 'forged' })).statusCode).toBe(403);
  });

  it('400 keeping the typed name: without JavaScript, with a name too long (by the field), with an unreadable answer', async () => {
    const { csrf } = await page();
    const noScript = await post('/indieweb/admin/passkeys/', { _csrf: csrf, name: 'My laptop', challenge_id: '', response: '' });
    expect(noScript.statusCode).toBe(400);
    expect(noScript.body).toContain('Adding a passkey needs JavaScript in this browser');
    expect(noScript.body).toContain('value="My laptop"');
    const long = 'n'.repeat(65);
    const tooLong = await post('/indieweb/admin/passkeys/', { _csrf: csrf, name: long, challenge_id: 'x', response: '{}' });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toMatch(
      /id="passkey-name" [^>]*aria-invalid="true" aria-describedby="passkey-name-error"><span class="error" id="passkey-name-error" role="alert">The name may have at most 64 characters.<\/span>/,
    );
    const unreadable = await post('/indieweb/admin/passkeys/', { _csrf: csrf, name: 'Phone', challenge_id: 'x', response: 'nope' });
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.body).toContain('The answer of your passkey could not be read.');
    expect(await t.app.indieweb.passkeys!.list((await t.app.indieweb.users!.findByName('alice'))!.id)).toEqual([]);
  });

  it('400 for an unknown passwordless mode, 409 for passkey-only without a passkey; nothing changes', async () => {
    const { csrf } = await page();
    expect((await post('/indieweb/admin/passkeys/passwordless', { _csrf: csrf, mode: 'sometimes' })).statusCode).toBe(400);
    const refused = await post('/indieweb/admin/passkeys/passwordless', { _csrf: csrf, mode: 'on' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('Register a passkey first');
    expect((await t.app.indieweb.users!.findByName('alice'))!.passwordless).toBe(false);
  });
});
