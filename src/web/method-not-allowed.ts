import type { FastifyInstance, HTTPMethods } from 'fastify';

const ALL: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Answers the methods a path does not serve with 405 and an `Allow` header, instead of 404. */
export function methodNotAllowed(app: FastifyInstance, url: string, allowed: readonly HTTPMethods[]): void {
  const others = ALL.filter((method) => !allowed.includes(method));
  app.route({
    method: others,
    url,
    handler: async (_request, reply) =>
      reply.code(405).header('allow', allowed.join(', ')).header('content-type', 'text/plain; charset=utf-8').send('method not allowed'),
  });
}
