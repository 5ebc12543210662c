/**
 * `GET /indieweb/self-test/authorization`: says whether a bearer token
 * reached the server, and through which header — never its value, and
 * nothing is checked against the token store. The doctor calls it through
 * the public URL to find proxies that strip `Authorization`.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { sendJson } from '../../web/reply.js';

/** What the self-test answers. */
export interface AuthorizationEcho {
  readonly bearer: boolean;
  /** The header the bearer came in, or null. */
  readonly via: 'authorization' | 'x-forwarded-authorization' | null;
  /** An `X-Forwarded-Authorization` arrived but INDIEWEB_TRUST_PROXY is off, so it would be ignored. */
  readonly forwardedIgnored: boolean;
}

export const SELF_TEST_PATH = '/self-test/authorization';

const hasBearer = (value: string | string[] | undefined) => typeof value === 'string' && /^Bearer[ \t]+\S/i.test(value);

export function selfTestRoutes(app: FastifyInstance, options: { trustProxy: boolean }): void {
  app.get(SELF_TEST_PATH, async (request, reply) => {
    const direct = hasBearer(request.headers.authorization);
    const forwarded = hasBearer(request.headers['x-forwarded-authorization']);
    const echo: AuthorizationEcho = {
      bearer: direct || (forwarded && options.trustProxy),
      via: direct ? 'authorization' : forwarded && options.trustProxy ? 'x-forwarded-authorization' : null,
      forwardedIgnored: !direct && forwarded && !options.trustProxy,
    };
    reply.header('cache-control', 'no-store');
    return sendJson(reply, 200, echo);
  });
}
