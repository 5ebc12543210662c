/**
 * One multipart request through the upload pipeline: fields collected, the
 * caller authorised before the first file is read, files stored as they
 * stream in, and everything stored removed again if anything fails.
 *
 * The token may also come as a body field after the files (SPEC.md
 * "Authentication" 1 puts no order on fields). When a file part arrives and
 * no credential has been seen yet, the files are written to a private
 * temporary directory under the same limits, the caller is authorised once
 * the body has ended, and only then are the files sniffed and stored.
 * What such requests may write aside is bounded across the whole process by
 * a {@link SpoolAllowance} (issue 28 F11): past it, a request that has shown
 * no token yet is a 401 at once, so a flood of anonymous uploads cannot fill
 * the disk however many connections it opens.
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
import { AuthenticationError, excerpt, forClient, InvalidRequestError, PayloadTooLargeError } from '../core/errors.js';
import { carriesCredential, type BearerAuth, type BearerGuard } from '../indieauth/bearer.js';
import type { MediaRecord } from '../storage/repositories/media.js';
import { addField, readFormParts } from './form-parts.js';
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
  /** Bounds what requests without a credential yet may spool, across requests; absent: only the request's own limits (a signed-in form). */
  readonly anonymousSpool?: SpoolAllowance;
}

/**
 * Bytes that requests without a credential yet may have spooled at one time,
 * shared by every request of one {@link createReceiveRequest}. Bytes are
 * taken as they are written and given back when the request's spool is
 * removed.
 */
export class SpoolAllowance {
  #used = 0;
  readonly capacity: number;
  constructor(capacity: number) {
    this.capacity = capacity;
  }
  /** Takes `bytes` when they fit; false (nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.capacity) return false;
    this.#used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/** What anonymous spooling may hold in all: 64 MiB, or one request's total limit when that is larger. */
export const ANONYMOUS_SPOOL_BYTES = 64 * 1024 * 1024;

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
async function spool(
  content: AsyncIterable<Uint8Array>,
  file: string,
  budget: UploadBudget,
  allowance: { take(bytes: number): boolean } | null,
): Promise<void> {
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
          // over the process-wide allowance: the same answer as no token at all, before more is written
          if (allowance !== null && !allowance.take(chunk.byteLength))
            throw new AuthenticationError(forClient('no token before the files, and the server holds no more anonymous uploads now'));
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
  if (limits.maxUploadTotalBytes !== null && request.headers['content-length'] === undefined)
    throw new PayloadTooLargeError(forClient('upload of unknown size'));
  const largest = largestBody(limits, options);
  if (largest !== null && Number(request.headers['content-length']) > largest)
    throw new PayloadTooLargeError(forClient('request body larger than the limits allow'));

  const budget = new UploadBudget(limits);
  const files = new Map<string, MediaRecord[]>();
  const stored: MediaRecord[] = [];
  const spooled: SpooledFile[] = [];
  let spoolDir: string | null = null;
  // what this request took of the shared allowance, given back when its spool is removed
  let spooledBytes = 0;
  const shared = options.anonymousSpool ?? null;
  const allowance =
    shared === null
      ? null
      : {
          take(bytes: number): boolean {
            if (!shared.take(bytes)) return false;
            spooledBytes += bytes;
            return true;
          },
        };
  let bodyChecked = false;
  let user: HostUser | null = null;

  async function store(name: string, file: IncomingFile, owner: HostUser, counted: UploadBudget): Promise<void> {
    if (!options.acceptsFile(name, fields)) throw new InvalidRequestError(forClient(`unexpected file part ${excerpt(name)}`));
    const record = await options.pipeline.store(file, owner, counted);
    stored.push(record);
    files.set(name, [...(files.get(name) ?? []), record]);
  }

  try {
    const parts = readFormParts(request.raw, { limits, fieldBytes: options.fieldBytes, requestLimits: options.requestLimits });
    for await (const part of parts) {
      const name = part.name.endsWith('[]') ? part.name.slice(0, -2) : part.name;
      if (part.type === 'field') {
        addField(fields, part.name, part.value);
        if (!bodyChecked && CREDENTIAL_FIELDS.has(part.name)) {
          // a bad token in the body is refused as soon as it arrives, not after the rest of the body
          bodyChecked = true;
          await options.authenticate(fields);
        }
        continue;
      }
      if (user === null && spoolDir === null && options.hasCredential(fields)) user = await options.authorize(fields);
      if (user !== null) {
        await store(name, { filename: part.filename, mimetype: part.mimetype, content: part.stream }, user, budget);
        continue;
      }
      // no credential yet: it may still come as a field after the files
      spoolDir ??= await mkdtemp(path.join(os.tmpdir(), 'indiestack-upload-'));
      const file = path.join(spoolDir, String(spooled.length));
      spooled.push({ name, filename: part.filename, mimetype: part.mimetype, file });
      await spool(part.stream, file, budget, allowance);
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
    shared?.give(spooledBytes);
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
 * Reads a multipart request: authenticates before the first file (or at
 * the end, when the token comes after the files), checks the scope, stores
 * accepted file parts.
 */
export type ReceiveRequest = (
  request: FastifyRequest,
  options: ReceiveRequestOptions,
) => Promise<ReceivedMultipart & { readonly auth: BearerAuth }>;

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
  const anonymousSpool = new SpoolAllowance(Math.max(ANONYMOUS_SPOOL_BYTES, deps.limits.maxUploadTotalBytes ?? 0));
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
      anonymousSpool,
    });
    // receiveMultipart authorises before it returns
    return { ...received, auth: auth! };
  };
}
