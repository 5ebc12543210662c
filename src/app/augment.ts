import type { IndieWebContext } from './context.js';

declare module 'fastify' {
  interface FastifyInstance {
    indieweb: IndieWebContext;
  }
}

export {};
