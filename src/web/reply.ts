import type { FastifyReply } from 'fastify';

/** A plain-text answer with an explicit UTF-8 content type. */
export function sendText(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply.code(status).header('content-type', 'text/plain; charset=utf-8').send(text);
}

/** A JSON answer, serialized with `JSON.stringify`, with an explicit UTF-8 content type. */
export function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(value));
}
