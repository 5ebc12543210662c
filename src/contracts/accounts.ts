/**
 * The user accounts indiestack acts for. Standalone mode brings its own
 * (accounts table, password login, signed session cookie); a host that
 * mounts the plugin passes an {@link Accounts} object instead.
 * @module
 */

/** A user of the host, as indiestack needs to see it. */
export interface HostUser {
  /** Stable identifier; tokens and codes are owned by it. */
  readonly id: string;
  /** Display name, for pages. */
  readonly name: string;
  /** The user's profile URLs (`me`), in the account's own spelling. The first is the primary one. */
  readonly me: readonly string[];
  /** An inactive user's tokens are refused and they cannot approve sign-ins. */
  readonly isActive: boolean;
}

/** The part of an incoming request an {@link Accounts} implementation may read. */
export interface AccountsRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly url: string;
}

/**
 * What a host implements to let indiestack know who is signed in.
 * @example
 * ```ts
 * app.register(indieweb, {
 *   accounts: {
 *     currentUser: (req) => sessionUser(req),
 *     loginUrl: (returnTo) => `/login?next=${encodeURIComponent(returnTo)}`,
 *     findUser: (id) => users.get(id) ?? null,
 *   },
 * });
 * ```
 */
export interface Accounts {
  /** The signed-in user of this request, or null. */
  currentUser(request: AccountsRequest): Promise<HostUser | null> | HostUser | null;
  /** Where to send a user who must sign in; `returnTo` is a same-origin path to come back to. */
  loginUrl(returnTo: string): string;
  /** Looks up the owner of a token or code. */
  findUser(id: string): Promise<HostUser | null> | HostUser | null;
  /**
   * Every user (optional, beyond SPEC.md). indiestack asks when a webmention
   * arrives, to decide whose it is: the owner of the entry at the target, else
   * the user whose profile URL covers it, else the only user. Without it no
   * user owns a webmention, so the admin's Webmentions page lists none (the
   * CLI still moderates them all).
   */
  listUsers?(): Promise<readonly HostUser[]> | readonly HostUser[];
}
