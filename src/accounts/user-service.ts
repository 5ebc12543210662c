import type { Clock } from '../core/clock.js';
import { randomId } from '../core/crypto.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../core/errors.js';
import { profileUrlKey, withRootPath } from '../core/url.js';
import { isUniqueViolation } from '../storage/errors.js';
import type { UserRecord, UsersRepository } from '../storage/repositories/users.js';
import { DEFAULT_MAX_CONCURRENT_HASHES } from '../config/config.js';
import { createPasswordHasher, dummyPasswordHash, type PasswordHasher } from './passwords.js';

export const USER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

export type UserService = ReturnType<typeof createUserService>;

export function createUserService(deps: {
  users: UsersRepository;
  clock: Clock;
  /** @defaultValue a hasher of its own running {@link DEFAULT_MAX_CONCURRENT_HASHES} hashes at once */
  passwords?: PasswordHasher;
}) {
  const { users, clock } = deps;
  const passwords = deps.passwords ?? createPasswordHasher({ maxConcurrent: DEFAULT_MAX_CONCURRENT_HASHES });
  const now = () => clock.now().toISOString();

  async function requireUser(name: string): Promise<UserRecord> {
    const user = await users.findByName(name);
    if (user === null) throw new NotFoundError(`no user named "${name}"`);
    return user;
  }

  return {
    async addUser(input: { name: string; me: readonly string[]; password: string }): Promise<UserRecord> {
      if (!USER_NAME_PATTERN.test(input.name)) {
        throw new InvalidRequestError(`"${input.name}" is not a valid user name (letters, digits, ".", "_", "-"; at most 64)`);
      }
      if (input.me.length === 0) throw new InvalidRequestError('at least one --me profile URL is required');
      const profileUrls = input.me.map((url) => {
        const key = profileUrlKey(url);
        if (key === null) throw new InvalidRequestError(`"${url}" is not an http(s) profile URL without fragment or userinfo`);
        return { url: withRootPath(url), key };
      });
      if (new Set(profileUrls.map((url) => url.key)).size !== profileUrls.length) {
        throw new InvalidRequestError('the same profile URL is given twice');
      }
      assertPassword(input.password);
      if ((await users.findByName(input.name)) !== null) throw new ConflictError(`user "${input.name}" already exists`);
      const taken = await users.findTakenProfileUrlKeys(profileUrls.map((url) => url.key));
      if (taken.length > 0) throw new ConflictError(`profile URL ${taken.join(', ')} already belongs to another user`);

      const id = randomId();
      try {
        await users.insert({ id, name: input.name, passwordHash: await passwords.hash(input.password), profileUrls, now: now() });
      } catch (error) {
        if (isUniqueViolation(error))
          throw new ConflictError(`user "${input.name}" or one of its profile URLs already exists`, { cause: error });
        throw error;
      }
      return (await users.findById(id)) as UserRecord;
    },

    list: () => users.list(),
    findByName: (name: string) => users.findByName(name),
    findById: (id: string) => users.findById(id),
    findByProfileUrl: (url: string) => {
      const key = profileUrlKey(url);
      return key === null ? Promise.resolve(null) : users.findByProfileUrlKey(key);
    },

    async setActive(name: string, active: boolean): Promise<UserRecord> {
      const user = await requireUser(name);
      await users.setActive(user.id, active, now());
      return { ...user, isActive: active };
    },

    async setPassword(name: string, password: string): Promise<void> {
      assertPassword(password);
      const user = await requireUser(name);
      await users.setPasswordHash(user.id, await passwords.hash(password), now());
    },

    async signOutEverywhere(userId: string): Promise<void> {
      await users.bumpSessionEpoch(userId, now());
    },

    /**
     * The active user with this name and password, or null. Costs one scrypt
     * whether or not the user exists, so timing does not tell which part was wrong.
     */
    async authenticate(name: string, password: string): Promise<UserRecord | null> {
      const found = USER_NAME_PATTERN.test(name) ? await users.findCredentials(name) : null;
      const candidate = password.length <= MAX_PASSWORD_LENGTH ? password : '';
      const ok = await passwords.verify(candidate, found?.passwordHash ?? (await dummyPasswordHash()));
      if (!ok || found === null || !found.user.isActive || candidate !== password) return null;
      return found.user;
    },
  };
}

function assertPassword(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH)
    throw new InvalidRequestError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new InvalidRequestError(`the password must have at most ${MAX_PASSWORD_LENGTH} characters`);
}
