/**
 * The admin feature: the signed-in user's pages for profile, connected apps,
 * webmentions, media and (with the built-in accounts) the account.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { adminPlugin, type AdminDeps } from './plugin.js';

export interface AdminFeature {
  readonly routes: (app: FastifyInstance) => Promise<void>;
}

export function createAdmin(deps: AdminDeps): AdminFeature {
  return { routes: (app) => adminPlugin(app, deps) };
}
