import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { InvalidRequestError } from '../core/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The value of a JSON body (undefined when empty); throws on invalid UTF-8 or JSON. */
function decodeJson(body: Buffer): unknown {
  const text = utf8.decode(body);
  return text.trim() === '' ? undefined : JSON.parse(text);
}

/** A JSON body that could not be read, handed to a route that must authenticate before it refuses the body. */
export class UnreadableJsonBody {
  constructor(readonly cause: unknown) {}
}

/**
 * In `app` (the resource routes), an unreadable JSON body becomes an
 * {@link UnreadableJsonBody} instead of an immediate 400: the spec answers a
 * missing or bad token with 401 first, then refuses the body.
 */
export function deferJsonErrors(app: FastifyInstance, options: { bodyLimit: number }): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_request, body, done) => {
    try {
      done(null, decodeJson(body as Buffer));
    } catch (error) {
      done(null, new UnreadableJsonBody(error));
    }
  });
}

/**
 * Our own parsers, added inside our encapsulated context only, after
 * removing whatever the host registered, so neither side collides.
 */
export async function registerBodyParsers(app: FastifyInstance, options: { bodyLimit: number } = { bodyLimit: 1024 * 1024 }): Promise<void> {
  app.removeAllContentTypeParsers();
  await app.register(formbody, { bodyLimit: options.bodyLimit });
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_request, body, done) => {
    try {
      done(null, decodeJson(body as Buffer));
    } catch (error) {
      done(new InvalidRequestError('request body is not valid UTF-8 JSON', { cause: error }), undefined);
    }
  });
  // multipart bodies are streamed by the routes that accept them (media/multipart.ts), never buffered here
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
}
