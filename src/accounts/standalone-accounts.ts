import type { Accounts, AccountsRequest, HostUser } from '../contracts/accounts.js';
import type { Clock } from '../core/clock.js';
import type { UserRecord, UsersRepository } from '../storage/repositories/users.js';
import { parseCookie } from 'cookie';
import { decodeSession, SESSION_COOKIE } from './session.js';
import type { Signer } from '../core/signing.js';

export const LOGIN_PATH = '/indieweb/login/';

export function toHostUser(user: UserRecord): HostUser {
  return { id: user.id, name: user.name, me: user.me, isActive: user.isActive };
}

/** Looks up one of our own accounts as a {@link HostUser}. */
export function findStandaloneUser(users: UsersRepository) {
  return async (id: string): Promise<HostUser | null> => {
    const user = await users.findById(id);
    return user === null ? null : toHostUser(user);
  };
}

/** The standalone server's own accounts: the users table and the signed session cookie. */
export function createStandaloneAccounts(deps: { users: UsersRepository; signer: Signer; clock: Clock; baseUrl: string }): Accounts {
  const { users, signer, clock, baseUrl } = deps;
  return {
    async currentUser(request: AccountsRequest): Promise<HostUser | null> {
      const header = request.headers.cookie;
      if (typeof header !== 'string') return null;
      const value = parseCookie(header)[SESSION_COOKIE];
      if (value === undefined) return null;
      const claims = decodeSession(signer, value, clock.now());
      if (claims === null) return null;
      const user = await users.findById(claims.userId);
      // a bumped epoch ends the session: password change, sign out everywhere
      if (user === null || !user.isActive || user.sessionEpoch !== claims.epoch) return null;
      return toHostUser(user);
    },
    loginUrl(returnTo: string): string {
      return `${baseUrl}${LOGIN_PATH}?${new URLSearchParams({ return_to: returnTo }).toString()}`;
    },
    findUser: findStandaloneUser(users),
    async listUsers(): Promise<HostUser[]> {
      return (await users.list()).map(toHostUser);
    },
  };
}
