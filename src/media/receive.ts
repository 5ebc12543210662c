/**
 * One multipart request through the upload pipeline: fields collected, the
 * caller authorised before the first file is read, files stored as they
 * stream in, and everything stored removed again if anything fails.
 *
 * What happens to a file part that arrives before any credential is the
 * caller's choice. The bearer-token surfaces (Micropub, the media endpoint)
 * refuse it: the request is authorised right there, so a request without a
 * token is a 401 before a byte of its file is read, let alone written
 * (issue 28 F11: an anonymous client could make the server write ~45 MiB per
 * connection). A token field must then come before the files; the header is
 * checked before the body is read. An HTML form of a signed-in user (the
 * admin Media page, whose CSRF token a browser may place after the file)
 * spools instead: the files are written to a private temporary directory
 * under the same limits, the form is checked once the body has ended, and
 * only then are the files sniffed and stored.
 * @module
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline as streamPipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { HostUser } from '../contracts/accounts.js';
import type { MediaConfig } from '../config/config.js';
import type { RequestLimits } from '../core/request-limits.js';
import { excerpt, forClient, InvalidRequestError, PayloadTooLargeError } from '../core/errors.js';
import { carriesCredential, type BearerAuth, type BearerGuard } from '../indieauth/bearer.js';
import type { MediaRecord } from '../storage/repositories/media.js';
import { readParts } from './multipart.js';
import { UploadBudget, type IncomingFile, type UploadPipeline } from './upload.js';

/** Text fields of a multipart body; repeated names give arrays (like a parsed form). */
export type MultipartFields = Readonly<Record<string, string | string[]>>;

export interface ReceivedMultipart {
  /** Text fields (an object without prototype); repeated names give arrays (like a parsed form). */
  readonly fields: Record<string, string | string[]>;
  /** Stored files by part name (`photo[]` counts as `photo`). */
  readonly files: ReadonlyMap<string, readonly MediaRecord[]>;
  readonly stored: readonly MediaRecord[];
  readonly user: HostUser;
}

export interface ReceiveOptions {
  readonly pipeline: UploadPipeline;
  readonly limits: MediaConfig;
  /** Bytes of all text fields of one request together. */
  readonly fieldBytes: number;
  /** Field count and name length. */
  readonly requestLimits: Pick<RequestLimits, 'multipartFields' | 'fieldNameBytes'>;
  /** Which file parts are accepted, given the fields seen so far; any other file part is 400. */
  readonly acceptsFile: (name: string, fields: MultipartFields) => boolean;
  /** Authenticates and checks scope from the fields seen so far; runs before any file is stored. */
  readonly authorize: (fields: MultipartFields) => Promise<HostUser>;
  /** Authenticates only (401, 403 invalid_client), without the scope check; runs as soon as a credential is seen. */
  readonly authenticate: (fields: MultipartFields) => Promise<void>;
  /** Whether the request (its headers, or the fields seen so far) carries a credential at all. */
  readonly hasCredential: (fields: MultipartFields) => boolean;
  /**
   * A file part before any credential: `refuse` authorises at once (so no
   * credential is a 401 and nothing of the file is read); `spool` writes it
   * aside until the credential comes (only behind a signed-in session).
   */
  readonly filesBeforeCredential: 'refuse' | 'spool';
}

/** Body fields that carry a credential (SPEC.md "Authentication" 1). */
const CREDENTIAL_FIELDS: ReadonlySet<string> = new Set(['Authorization', 'access_token']);

/** Room for the boundary and headers of one part, when a Content-Length is compared with the limits. */
const PART_OVERHEAD_BYTES = 2048;

/** A file part written aside until the caller is known. */
interface SpooledFile {
  readonly name: string;
  readonly filename: string;
  readonly mimetype: string;
  readonly file: string;
}

/** Limits were counted while spooling: the stored copy is not counted twice. */
const UNLIMITED = { maxUploadBytes: null, maxUploadCount: null, maxUploadTotalBytes: null };

/** Writes a part's bytes to `file`, counting them against the request's limits as they come; the file is closed before this settles. */
async function spool(content: AsyncIterable<Uint8Array>, file: string, budget: UploadBudget): Promise<void> {
  budget.countFile();
  let size = 0;
  const out = createWriteStream(file, { mode: 0o600 });
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  out.on('error', () => {}); // reported through the pipeline
  try {
    await streamPipeline(
      content,
      async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          size += chunk.byteLength;
          budget.countBytes(chunk.byteLength, size);
          yield chunk;
        }
      },
      out,
    );
  } finally {
    if (!out.destroyed && !out.writableFinished) out.destroy();
    await closed;
  }
}

/** The most bytes a body within the limits can have; null when no total limit applies. */
function largestBody(limits: MediaConfig, options: ReceiveOptions): number | null {
  if (limits.maxUploadTotalBytes === null) return null;
  const parts = options.requestLimits.multipartFields + (limits.maxUploadCount ?? 100) + 1;
  return limits.maxUploadTotalBytes + options.fieldBytes + parts * PART_OVERHEAD_BYTES;
}

export async function receiveMultipart(request: FastifyRequest, options: ReceiveOptions): Promise<ReceivedMultipart> {
  const { limits } = options;
  const fields = Object.create(null) as Record<string, string | string[]>;
  // a credential in the header is checked before a byte of the body is read
  if (options.hasCredential(fields)) await options.authenticate(fields);
  // spec: an upload of unknown size is 413 when a total limit applies
  if (limits.maxUploadTotalBytes !== null && request.headers['content-length'] === undefined) throw new PayloadTooLargeError(forClient('upload of unknown size'));
  const largest = largestBody(limits, options);
  if (largest !== null && Number(request.headers['content-length']) > largest) throw new PayloadTooLargeError(forClient('request body larger than the limits allow'));

  const budget = new UploadBudget(limits);
  const files = new Map<string, MediaRecord[]>();
  const stored: MediaRecord[] = [];
  const spooled: SpooledFile[] = [];
  let spoolDir: string | null = null;
  let bodyChecked = false;
  let user: HostUser | null = null;

  async function store(name: string, file: IncomingFile, owner: HostUser, counted: UploadBudget): Promise<void> {
    if (!options.acceptsFile(name, fields)) throw new InvalidRequestError(forClient(`unexpected file part ${excerpt(name)}`));
    const record = await options.pipeline.store(file, owner, counted);
    stored.push(record);
    files.set(name, [...(files.get(name) ?? []), record]);
  }

  try {
    const parts = readParts(request.raw, {
      fileBytes: limits.maxUploadBytes,
      files: limits.maxUploadCount,
      fieldBytes: options.fieldBytes,
      fields: options.requestLimits.multipartFields,
      nameBytes: options.requestLimits.fieldNameBytes,
    });
    for await (const part of parts) {
      const name = part.name.endsWith('[]') ? part.name.slice(0, -2) : part.name;
      if (part.type === 'field') {
        const existing = fields[part.name];
        if (existing === undefined) fields[part.name] = part.value;
        else if (Array.isArray(existing)) existing.push(part.value);
        else fields[part.name] = [existing, part.value];
        if (!bodyChecked && CREDENTIAL_FIELDS.has(part.name)) {
          // a bad token in the body is refused as soon as it arrives, not after the rest of the body
          bodyChecked = true;
          await options.authenticate(fields);
        }
        continue;
      }
      if (user === null && spoolDir === null && (options.hasCredential(fields) || options.filesBeforeCredential === 'refuse')) user = await options.authorize(fields);
      if (user !== null) {
        await store(name, { filename: part.filename, mimetype: part.mimetype, content: part.stream }, user, budget);
        continue;
      }
      // no credential yet: it may still come as a field after the files
      spoolDir ??= await mkdtemp(path.join(os.tmpdir(), 'indiestack-upload-'));
      const file = path.join(spoolDir, String(spooled.length));
      spooled.push({ name, filename: part.filename, mimetype: part.mimetype, file });
      await spool(part.stream, file, budget);
    }
    user ??= await options.authorize(fields);
    for (const file of spooled) {
      const content = createReadStream(file.file);
      content.on('error', () => {}); // reported to the reader
      try {
        await store(file.name, { filename: file.filename, mimetype: file.mimetype, content }, user, new UploadBudget(UNLIMITED));
      } finally {
        content.destroy();
      }
    }
  } catch (error) {
    await options.pipeline.discard(stored);
    throw error;
  } finally {
    if (spoolDir !== null) await rm(spoolDir, { recursive: true, force: true });
  }
  return { fields, files, stored, user };
}

/** What one kind of multipart request accepts and needs. */
export interface ReceiveRequestOptions {
  /** Which file parts are accepted, given the fields seen so far. */
  readonly acceptsFile: (name: string, fields: MultipartFields) => boolean;
  /** The scope needed; a function of the fields gets them; null leaves the scope to the caller. */
  readonly scope: string | ((fields: MultipartFields) => string | null);
}

/**
 * Reads a multipart request: authenticates before the first file (a file
 * before any token is a 401), checks the scope, stores accepted file parts.
 */
export type ReceiveRequest = (request: FastifyRequest, options: ReceiveRequestOptions) => Promise<ReceivedMultipart & { readonly auth: BearerAuth }>;

/** {@link receiveMultipart} with the bearer guard and the configured limits, as Micropub and media use it. */
export function createReceiveRequest(deps: {
  pipeline: UploadPipeline;
  bearer: BearerGuard;
  limits: MediaConfig;
  /** Bytes of all text fields of one request together. */
  fieldBytes: number;
  requestLimits: RequestLimits;
  trustProxy: boolean;
}): ReceiveRequest {
  const { pipeline, bearer, trustProxy } = deps;
  return async (request, receiveOptions) => {
    let auth: BearerAuth | null = null;
    const received = await receiveMultipart(request, {
      pipeline,
      limits: deps.limits,
      fieldBytes: deps.fieldBytes,
      requestLimits: deps.requestLimits,
      acceptsFile: receiveOptions.acceptsFile,
      authenticate: async (fields) => {
        await bearer.authenticate({ headers: request.headers, body: fields });
      },
      authorize: async (fields) => {
        const authenticated = await bearer.authenticate({ headers: request.headers, body: fields });
        const scope = typeof receiveOptions.scope === 'function' ? receiveOptions.scope(fields) : receiveOptions.scope;
        if (scope !== null) bearer.assertScope(authenticated, scope);
        auth = authenticated;
        return authenticated.user;
      },
      hasCredential: (fields) => carriesCredential({ headers: request.headers, body: fields }, { trustProxy }),
      // an anonymous request never makes the server write its files: no token before the first file is a 401
      filesBeforeCredential: 'refuse',
    });
    // receiveMultipart authorises before it returns
    return { ...received, auth: auth! };
  };
}
