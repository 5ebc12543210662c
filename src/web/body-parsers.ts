/**
 * Request body parsers with shape limits checked before any route runs:
 * JSON nesting depth (scanned on the text, without recursion), keys per
 * object, items per array, key length; form parameter count and name length.
 * Objects built from client keys have no prototype, so `__proto__`,
 * `constructor` and `prototype` are ordinary names.
 * @module
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../core/request-limits.js';
import { BodyShapeError, forClient, InvalidRequestError } from '../core/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Throws once the nesting of arrays/objects in JSON text passes `max`.
 * One pass over the characters, no recursion; strings are skipped.
 */
export function assertJsonDepth(text: string, max: number): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      depth++;
      if (depth > max) throw new BodyShapeError(forClient(`JSON nested deeper than ${max} levels`));
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
  }
}

function nameTooLong(name: string, maxBytes: number): boolean {
  return name.length > maxBytes || (name.length * 3 > maxBytes && Buffer.byteLength(name) > maxBytes);
}

/** Throws when an object has too many keys or a key is too long, or an array has too many items; walks without recursion. */
export function assertJsonShape(value: unknown, limits: RequestLimits): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null) continue;
    if (Array.isArray(current)) {
      if (current.length > limits.valuesPerProperty)
        throw new BodyShapeError(forClient(`JSON array with more than ${limits.valuesPerProperty} items`));
      for (const item of current) if (typeof item === 'object' && item !== null) pending.push(item);
      continue;
    }
    const keys = Object.keys(current);
    if (keys.length > limits.properties) throw new BodyShapeError(forClient(`JSON object with more than ${limits.properties} keys`));
    for (const key of keys) {
      if (nameTooLong(key, limits.fieldNameBytes))
        throw new BodyShapeError(forClient(`JSON key longer than ${limits.fieldNameBytes} bytes`));
      const item = (current as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
}

/** The value of a JSON body (undefined when empty); throws on invalid UTF-8 or JSON, or a shape over the limits. */
function decodeJson(body: Buffer, limits: RequestLimits): unknown {
  const text = utf8.decode(body);
  if (text.trim() === '') return undefined;
  assertJsonDepth(text, limits.jsonDepth);
  // JSON.parse defines keys as own properties: "__proto__" never becomes a prototype
  const value: unknown = JSON.parse(text);
  assertJsonShape(value, limits);
  return value;
}

/**
 * A form body as an object without prototype (repeated names give arrays),
 * like @fastify/formbody's default parser; throws before parsing when there
 * are too many parameters, and when a name is too long.
 */
export function parseFormBody(text: string, limits: RequestLimits): Record<string, string | string[]> {
  let separators = 0;
  for (let index = text.indexOf('&'); index !== -1; index = text.indexOf('&', index + 1)) {
    separators++;
    if (separators >= limits.formFields) throw new BodyShapeError(forClient(`more than ${limits.formFields} form parameters`));
  }
  const fields = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(text)) {
    if (nameTooLong(name, limits.fieldNameBytes))
      throw new BodyShapeError(forClient(`form parameter name longer than ${limits.fieldNameBytes} bytes`));
    const existing = fields[name];
    if (existing === undefined) fields[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else fields[name] = [existing, value];
  }
  return fields;
}

/** A JSON or form body that could not be read, handed to a route that must authenticate before it refuses the body. */
export class UnreadableJsonBody {
  constructor(readonly cause: unknown) {}
}

export interface BodyParserOptions {
  readonly bodyLimit: number;
  readonly limits?: RequestLimits;
}

/**
 * In `app` (the resource routes), an unreadable JSON body, or a JSON or form
 * body over a shape limit, becomes an {@link UnreadableJsonBody} instead of
 * an immediate 400: the spec answers a missing or bad token with 401 first,
 * then refuses the body.
 */
export function deferJsonErrors(app: FastifyInstance, options: BodyParserOptions): void {
  const limits = options.limits ?? DEFAULT_REQUEST_LIMITS;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_request, body, done) => {
    try {
      done(null, decodeJson(body as Buffer, limits));
    } catch (error) {
      done(null, new UnreadableJsonBody(error));
    }
  });
  app.removeContentTypeParser('application/x-www-form-urlencoded');
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: options.bodyLimit },
    (_request, body, done) => {
      try {
        done(null, parseFormBody(body as string, limits));
      } catch (error) {
        done(null, new UnreadableJsonBody(error));
      }
    },
  );
}

/**
 * Our own parsers, added inside our encapsulated context only, after
 * removing whatever the host registered, so neither side collides.
 */
export async function registerBodyParsers(app: FastifyInstance, options: BodyParserOptions = { bodyLimit: 1024 * 1024 }): Promise<void> {
  const limits = options.limits ?? DEFAULT_REQUEST_LIMITS;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: options.bodyLimit },
    (_request, body, done) => {
      try {
        done(null, parseFormBody(body as string, limits));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_request, body, done) => {
    try {
      done(null, decodeJson(body as Buffer, limits));
    } catch (error) {
      done(
        error instanceof BodyShapeError
          ? error
          : new InvalidRequestError(forClient('request body is not valid UTF-8 JSON'), { cause: error }),
        undefined,
      );
    }
  });
  // multipart bodies are streamed by the routes that accept them (media/multipart.ts), never buffered here
  app.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
}
