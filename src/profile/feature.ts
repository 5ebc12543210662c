/**
 * The profile feature: each user's h-card (read and updated through
 * {@link ProfileService}) and, with the built-in accounts, its public page.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import type { UserService } from '../accounts/user-service.js';
import { profileRoutes } from './routes.js';
import type { ProfileService } from './service.js';

export interface ProfileFeature {
  readonly service: ProfileService;
  /** `/profile/NAME/`; registers nothing when the host brings its own accounts (we cannot look names up). */
  readonly routes: (app: FastifyInstance) => Promise<void>;
}

export function createProfile(deps: {
  service: ProfileService;
  users: UserService | null;
  baseUrl: string;
  entryPages?: boolean;
}): ProfileFeature {
  const { users, baseUrl, service } = deps;
  const entryPages = deps.entryPages === true;
  return {
    service,
    routes: async (app) => {
      if (users !== null) await profileRoutes(app, { users, profiles: service, baseUrl, entryPages });
    },
  };
}
