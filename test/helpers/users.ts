/**
 * Users for tests, made and signed in cheaply: every scrypt costs ~125 ms of
 * CPU and the suite adds and signs in hundreds of users, most of them with the
 * same few passwords.
 *
 * - The helpers' user service hashes each distinct password once per worker
 *   (a real scrypt hash, salt and all) and stores that hash for every user who
 *   has it.
 * - {@link sessionFor} gives a user the session a sign-in would have given
 *   them: the same signed cookie, under the test server's secret, proven now.
 *   The login form itself (password verified by scrypt, throttle, CSRF) is
 *   tested where it is the subject: test/accounts/login.test.ts,
 *   sign-in-throttle.test.ts, hash-bound.test.ts, the admin's fresh proof and
 *   the browser tests, which all sign in through the form ({@link signIn}).
 *
 * Tests of hashing itself (src/accounts/passwords.test.ts) and of salts never
 * come through here.
 */
import { createPasswordHasher, type PasswordHasher } from '../../src/accounts/passwords.js';
import { encodeSession, SESSION_COOKIE, SESSION_LIFETIME_S } from '../../src/accounts/session.js';
import { createUserService, type UserService } from '../../src/accounts/user-service.js';
import { createSigner } from '../../src/core/signing.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import { CookieJar, signIn, type TestApp } from './app.js';

const real = createPasswordHasher({ maxConcurrent: 2 });
const hashes = new Map<string, Promise<string>>();

const reusingHasher: PasswordHasher = {
  hash(password) {
    let hash = hashes.get(password);
    if (hash === undefined) {
      hash = real.hash(password);
      hashes.set(password, hash);
      hash.catch(() => hashes.delete(password));
    }
    return hash;
  },
  verify: (password, stored) => real.verify(password, stored),
  load: real.load,
};

/** A user service on the test app's database whose hashes of a password are reused (see above). */
export function testUsers(t: Pick<TestApp, 'database' | 'clock'>): UserService {
  return createUserService({ users: createUsersRepository(t.database.db), clock: t.clock, passwords: reusingHasher });
}

/**
 * A browser signed in as `user`, holding what the login form leaves in it: the
 * form page's CSRF cookie (the page is fetched, as a browser would) and the
 * signed session cookie the form sets on success (same claims: the account's
 * session epoch, the session's lifetime, proven now), made without the form's
 * scrypt check. A server without a secret in its settings (it made its own in
 * the data directory) is signed in through the form.
 */
export async function sessionFor(
  t: Pick<TestApp, 'app' | 'config' | 'clock'>,
  user: { readonly id: string; readonly name: string; readonly sessionEpoch: number },
  password: string,
  jar = new CookieJar(),
): Promise<CookieJar> {
  if (t.config.secret === null) return signIn(t.app, user.name, password, jar);
  jar.storeFrom(await t.app.inject({ method: 'GET', url: '/indieweb/login/', headers: { cookie: jar.header() } }));
  const nowS = Math.floor(t.clock.now().getTime() / 1000);
  const claims = { userId: user.id, epoch: user.sessionEpoch, expiresAt: nowS + SESSION_LIFETIME_S, provenAt: nowS };
  jar.store(`${SESSION_COOKIE}=${encodeSession(createSigner(t.config.secret), claims)}; Path=/; HttpOnly; SameSite=Lax`);
  return jar;
}
