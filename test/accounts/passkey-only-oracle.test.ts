/**
 * Issue 28 F9: for an account that signs in with passkeys only, the right
 * password must get exactly the answer a wrong one gets (status, page,
 * throttle), so the sign-in form cannot be used to confirm a password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { addAlice, PASSWORD } from '../helpers/indieauth.js';
import { LoopbackBrowser, serveOnLoopback } from '../helpers/loopback.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';

/** The page without what differs on every load (the CSRF token). */
const comparable = (body: string) => body.replace(/name="_csrf" value="[^"]*"/g, 'name="_csrf" value=""');

for (const dialect of DIALECTS) {
  describe(`password sign-in of a passkey-only account (${dialect}, real HTTP)`, () => {
    let t: TestApp;
    let origin: string;

    beforeAll(async () => {
      t = await buildTestApp({ dialect });
      await addAlice(t);
      const alice = (await t.app.indieweb.users!.findByName('alice'))!;
      // passkey-only, as the Passkeys page leaves it once a passkey exists
      await createUsersRepository(t.database.db).setPasswordless(alice.id, true, new Date().toISOString());
      origin = await serveOnLoopback(t.app);
    });
    afterAll(async () => t?.close());

    async function attempt(password: string) {
      const browser = new LoopbackBrowser(origin);
      return browser.submit('/indieweb/login/', '/indieweb/login/', { username: 'alice', password, return_to: '/indieweb/' });
    }

    it('the right password and a wrong one get the same status, headers and page; neither signs in', async () => {
      const right = await attempt(PASSWORD);
      const wrong = await attempt('not the password at all');
      expect(right.status).toBe(401);
      expect(wrong.status).toBe(401);
      expect(comparable(right.body)).toBe(comparable(wrong.body));
      expect(right.body).toContain('Sign-in failed. Check the user name and the password.');
      expect(right.body).not.toContain('This account signs in with a passkey only');
      expect(right.headers.get('set-cookie') ?? '').not.toContain('indiestack_session=');
      expect([...right.headers.keys()].filter((name) => name !== 'date' && name !== 'set-cookie' && name !== 'content-length')).toEqual(
        [...wrong.headers.keys()].filter((name) => name !== 'date' && name !== 'set-cookie' && name !== 'content-length'),
      );
    });
  });
}
