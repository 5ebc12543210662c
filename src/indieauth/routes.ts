/**
 * The IndieAuth endpoints, wire format only: the front channel
 * (front-channel.ts), the back channel (back-channel.ts) and the OAuth
 * extensions (oauth-extensions.ts), registered in this order, and the 405s.
 * @module
 */
import type { IndieAuthRoutesDeps } from './route-deps.js';
import { createProfileClaims } from './profile-claims.js';
import { frontChannelRoutes } from './front-channel.js';
import { backChannelRoutes } from './back-channel.js';
import { extensionRoutes } from './oauth-extensions.js';
import type { FastifyInstance } from 'fastify';
import { methodNotAllowed } from '../web/method-not-allowed.js';

export type { IndieAuthRoutesDeps } from './route-deps.js';

export async function indieauthRoutes(app: FastifyInstance, deps: IndieAuthRoutesDeps): Promise<void> {
  const profileFor = createProfileClaims(deps.profiles);
  await frontChannelRoutes(app, deps);
  await backChannelRoutes(app, deps, profileFor);
  await extensionRoutes(app, deps, profileFor);

  methodNotAllowed(app, '/auth/', ['GET', 'HEAD', 'POST']);
  methodNotAllowed(app, '/auth/consent/', ['POST']);
  methodNotAllowed(app, '/token/', ['GET', 'HEAD', 'POST']);
  methodNotAllowed(app, '/token/revoke', ['POST']);
  methodNotAllowed(app, '/token/introspect', ['POST']);
}
