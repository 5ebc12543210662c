import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../core/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Our own parsers, added inside our encapsulated context only, after
 * removing whatever the host registered, so neither side collides.
 */
export async function registerBodyParsers(app: FastifyInstance, options: { bodyLimit: number } = { bodyLimit: 1024 * 1024 }): Promise<void> {
  app.removeAllContentTypeParsers();
  await app.register(formbody, { bodyLimit: options.bodyLimit });
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_request, body, done) => {
    try {
      const text = utf8.decode(body as Buffer);
      done(null, text.trim() === '' ? undefined : JSON.parse(text));
    } catch (error) {
      done(new InvalidRequestError('request body is not valid UTF-8 JSON', { cause: error }), undefined);
    }
  });
  // multipart bodies are streamed by the routes that accept them (media/multipart.ts), never buffered here
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
}
