/**
 * Issue 28 F6: a session cookie alone (no password) could register a
 * passkey and switch on passkey-only, and the passkey survived "sign out
 * everywhere". Account changes now need a proof of the last 5 minutes; sign
 * out everywhere offers to remove the passkeys added since the sign-in.
 * Real HTTP on loopback, SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { buildTestApp, CookieJar, hiddenField, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { addAlice, PASSWORD } from '../helpers/indieauth.js';
import { LoopbackBrowser, serveOnLoopback } from '../helpers/loopback.js';
import { createPasskeysRepository } from '../../src/storage/repositories/passkeys.js';

const ADMIN = '/indieweb/admin';

for (const dialect of DIALECTS) {
  describe(`fresh proof for account changes (${dialect}, real HTTP)`, () => {
    let t: TestApp;
    let origin: string;
    let owner: LoopbackBrowser;
    let aliceId: string;

    beforeAll(async () => {
      t = await buildTestApp({ dialect });
      await addAlice(t);
      aliceId = (await t.app.indieweb.users!.findByName('alice'))!.id;
      origin = await serveOnLoopback(t.app);
    });
    afterAll(async () => t?.close());

    beforeEach(async () => {
      // a clean account: password sign-in on, no passkeys; the owner signed in just now
      await t.app.indieweb.passkeys!.setPasswordless(aliceId, false);
      for (const passkey of await passkeysOf()) await t.app.indieweb.passkeys!.remove(aliceId, passkey.id);
      owner = new LoopbackBrowser(origin);
      await owner.signIn('alice', PASSWORD);
    });

    const passkeysOf = () => t.app.indieweb.passkeys!.list(aliceId);
    const alice = async () => (await t.app.indieweb.users!.findByName('alice'))!;
    const challengeRows = async () => (await t.database.db.selectFrom('indieweb_webauthn_challenge').select('id').execute()).length;

    /** A passkey as registration stores it (public key only), added at the clock's now. */
    async function storePasskey(name: string): Promise<string> {
      const id = randomBytes(8).toString('hex');
      await createPasskeysRepository(t.database.db).insert({
        id,
        userId: aliceId,
        credentialId: randomBytes(16).toString('base64url'),
        publicKey: randomBytes(32).toString('base64url'),
        counter: 0,
        transports: ['internal'],
        name,
        deviceType: 'singleDevice',
        backedUp: false,
        createdAt: t.clock.now().toISOString(),
      });
      return id;
    }

    /** A copy of the owner's session cookie, taken now (stolen, or a browser left open). */
    function stolenCopy(): LoopbackBrowser {
      const jar = new CookieJar();
      jar.store(`indiestack_session=${owner.jar.get('indiestack_session')!}`);
      jar.store(`indiestack_csrf=${owner.jar.get('indiestack_csrf')!}`);
      return new LoopbackBrowser(origin, jar);
    }

    it('a session cookie older than 5 minutes gets no challenge, adds no passkey, removes none and cannot switch passkey-only on', async () => {
      const planted = await storePasskey('Already there');
      t.clock.advance(301);
      const thief = stolenCopy();
      const page = await thief.get(`${ADMIN}/passkeys/`);
      expect(page.status).toBe(200);
      expect(page.body).toContain("Confirm it's you");
      expect(page.body).not.toContain('id="passkey-add"');
      const csrf = hiddenField(page.body, '_csrf');
      const before = await challengeRows();

      const options = await thief.post(`${ADMIN}/passkeys/options`, { _csrf: csrf });
      expect(options.status).toBe(403);
      expect(JSON.parse(options.body)).toEqual({ error: "Confirm it's you first: reload the page." });
      expect(await challengeRows()).toBe(before);

      const add = await thief.post(`${ADMIN}/passkeys/`, {
        _csrf: csrf,
        name: 'Thief',
        challenge_id: 'x',
        response: '{"id":"x","response":{"clientDataJSON":"x"}}',
      });
      const only = await thief.post(`${ADMIN}/passkeys/passwordless`, { _csrf: csrf, mode: 'on' });
      const remove = await thief.post(`${ADMIN}/passkeys/remove`, { _csrf: csrf, id: planted });
      for (const refused of [add, only, remove]) {
        expect(refused.status).toBe(403);
        expect(refused.body).toContain('Nothing was changed yet.');
        expect(refused.body).toContain('action="/indieweb/admin/confirm/"');
      }
      expect((await alice()).passwordless).toBe(false);
      expect((await passkeysOf()).map((passkey) => passkey.id)).toEqual([planted]);
      // the owner's password still signs in
      await new LoopbackBrowser(origin).signIn('alice', PASSWORD);
    });

    it('confirming with the password renews the proof for 5 minutes and goes back to the page; a wrong one does not', async () => {
      await storePasskey('Phone');
      t.clock.advance(301);
      const wrong = await owner.submit(`${ADMIN}/confirm/?then=${encodeURIComponent(`${ADMIN}/passkeys/`)}`, `${ADMIN}/confirm/`, {
        then: `${ADMIN}/passkeys/`,
        password: 'not my password',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toContain('The password is not right.');
      expect((await owner.submit(`${ADMIN}/passkeys/`, `${ADMIN}/passkeys/passwordless`, { mode: 'on' })).status).toBe(403);

      const right = await owner.submit(`${ADMIN}/confirm/`, `${ADMIN}/confirm/`, { then: `${ADMIN}/passkeys/`, password: PASSWORD });
      expect(right.status).toBe(303);
      expect(right.location).toBe(`http://indiestack.test${ADMIN}/passkeys/`);
      // somewhere else than our admin pages is never a place to go back to
      const elsewhere = await owner.submit(`${ADMIN}/confirm/`, `${ADMIN}/confirm/`, { then: '//evil.example/', password: PASSWORD });
      expect(elsewhere.location).toBe(`http://indiestack.test${ADMIN}/passkeys/`);

      const page = await owner.get(`${ADMIN}/passkeys/`);
      expect(page.body).toContain('id="passkey-add"');
      expect((await owner.post(`${ADMIN}/passkeys/options`, { _csrf: hiddenField(page.body, '_csrf') })).status).toBe(200);
      expect((await owner.post(`${ADMIN}/passkeys/passwordless`, { _csrf: hiddenField(page.body, '_csrf'), mode: 'on' })).status).toBe(303);
      expect((await alice()).passwordless).toBe(true);
      t.clock.advance(300);
      expect((await owner.submit(`${ADMIN}/passkeys/`, `${ADMIN}/passkeys/passwordless`, { mode: 'off' })).status).toBe(403);
      expect((await alice()).passwordless).toBe(true);
    });

    it('a passkey-only account confirms with a passkey only, and its password change needs that proof', async () => {
      await storePasskey('Only key');
      await t.app.indieweb.passkeys!.setPasswordless(aliceId, true);
      t.clock.advance(301);
      const step = await owner.get(`${ADMIN}/confirm/`);
      expect(step.body).not.toContain('name="password"');
      expect(step.body).toContain('id="passkey-confirm"');
      const byPassword = await owner.post(`${ADMIN}/confirm/`, {
        _csrf: hiddenField(step.body, '_csrf'),
        then: `${ADMIN}/passkeys/`,
        password: PASSWORD,
      });
      expect(byPassword.status).toBe(400);
      expect(byPassword.body).toContain('This account signs in with passkeys only: confirm with one of your passkeys.');
      const change = await owner.submit(`${ADMIN}/account/`, `${ADMIN}/account/password`, {
        current: PASSWORD,
        new: 'a new password 2',
        confirm: 'a new password 2',
      });
      expect(change.status).toBe(403);
      expect(change.body).toContain('Nothing was changed yet.');
      await t.app.indieweb.passkeys!.setPasswordless(aliceId, false);
      expect((await t.app.indieweb.users!.authenticate('alice', PASSWORD))?.id).toBe(aliceId);
    });

    it('sign out everywhere lists the passkeys added since the sign-in, removes the ticked ones and gives the password back', async () => {
      t.clock.advance(1);
      const older = await storePasskey('Added before');
      // the owner signs in again; then someone with the session adds a passkey and switches passkey-only on
      t.clock.advance(60);
      owner = new LoopbackBrowser(origin);
      await owner.signIn('alice', PASSWORD);
      t.clock.advance(1);
      const planted = await storePasskey('Planted');
      await createPasskeysRepository(t.database.db).remove(aliceId, older);
      await t.app.indieweb.passkeys!.setPasswordless(aliceId, true);

      const page = await owner.get(`${ADMIN}/account/sign-out-everywhere`);
      expect(page.status).toBe(200);
      expect(page.body).toContain(`<input type="checkbox" name="remove" value="${planted}" checked> Planted`);
      expect(page.body).not.toContain('Added before');

      // without a fresh proof nothing happens, not even the sign-out
      t.clock.advance(301);
      const stale = await owner.post(`${ADMIN}/account/sign-out-everywhere`, { _csrf: hiddenField(page.body, '_csrf'), remove: planted });
      expect(stale.status).toBe(403);
      expect((await passkeysOf()).map((passkey) => passkey.id)).toEqual([planted]);
      expect((await owner.get(`${ADMIN}/account/`)).status).toBe(200);

      // proven again (the operator turned password sign-in back on for this, as the docs say)
      await t.app.indieweb.passkeys!.setPasswordless(aliceId, false);
      expect(
        (await owner.submit(`${ADMIN}/confirm/`, `${ADMIN}/confirm/`, { then: `${ADMIN}/account/sign-out-everywhere`, password: PASSWORD }))
          .status,
      ).toBe(303);
      await t.app.indieweb.passkeys!.setPasswordless(aliceId, true);
      const done = await owner.submit(`${ADMIN}/account/sign-out-everywhere`, `${ADMIN}/account/sign-out-everywhere`, { remove: planted });
      expect(done.status).toBe(303);
      expect(await passkeysOf()).toEqual([]);
      expect((await alice()).passwordless).toBe(false);
      expect((await owner.get(`${ADMIN}/account/`)).status).toBe(303);
      // the owner's password signs in again
      await new LoopbackBrowser(origin).signIn('alice', PASSWORD);
    });

    it('sign out everywhere with nothing ticked signs out without a fresh proof and removes nothing', async () => {
      const kept = await storePasskey('Kept');
      t.clock.advance(301);
      const done = await owner.submit(`${ADMIN}/account/sign-out-everywhere`, `${ADMIN}/account/sign-out-everywhere`, {});
      expect(done.status).toBe(303);
      expect((await passkeysOf()).map((passkey) => passkey.id)).toEqual([kept]);
      expect((await owner.get(`${ADMIN}/account/`)).status).toBe(303);
    });
  });
}
