/**
 * Users for tests, made cheaply: every scrypt costs ~125 ms of CPU and the
 * suite adds hundreds of users, most of them with the same few passwords. The
 * helpers' user service hashes each distinct password once per worker (a real
 * scrypt hash, salt and all) and stores that hash for every user who has it;
 * signing in still goes through the application's own hasher and verifies it
 * for real. Tests of hashing itself (src/accounts/passwords.test.ts) and of
 * salts never come through here.
 */
import { createPasswordHasher, type PasswordHasher } from '../../src/accounts/passwords.js';
import { createUserService, type UserService } from '../../src/accounts/user-service.js';
import { createUsersRepository } from '../../src/storage/repositories/users.js';
import type { TestApp } from './app.js';

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
