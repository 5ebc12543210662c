/**
 * The signed-in user of an admin page, as the admin plugin's guard
 * (plugin.ts) leaves it on the request.
 * @module
 */
import type { FastifyRequest } from 'fastify';
import type { HostUser } from '../contracts/accounts.js';

/** Who is using the admin pages, and what every page needs of it. */
export interface AdminSession {
  readonly user: HostUser;
  /** The CSRF token of this browser and user, for the page's forms. */
  readonly csrf: string;
  /** Whether the Account page exists (the built-in accounts). */
  readonly hasAccountPage: boolean;
  /** Webmentions of the user waiting for approval (shown in the navigation). */
  readonly heldMentions: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the admin plugin's preHandler on the admin pages; null elsewhere. */
    adminSession: AdminSession | null;
  }
}

/** The session of an admin page's request (the guard ran before the handler). */
export function sessionOf(request: FastifyRequest): AdminSession {
  if (request.adminSession === null) throw new Error('admin page registered outside the admin plugin');
  return request.adminSession;
}
