/**
 * One multipart request through the upload pipeline: fields collected, the
 * caller authorised before the first file is read, files stored as they
 * stream in, and everything stored removed again if anything fails.
 * @module
 */
import type { FastifyRequest } from 'fastify';
import type { HostUser } from '../contracts/accounts.js';
import type { MediaConfig } from '../config/config.js';
import { InvalidRequestError, PayloadTooLargeError } from '../core/errors.js';
import type { MediaRecord } from '../storage/repositories/media.js';
import { readParts } from './multipart.js';
import { UploadBudget, type UploadPipeline } from './upload.js';

export interface ReceivedMultipart {
  /** Text fields; repeated names give arrays (like a parsed form). */
  readonly fields: Record<string, string | string[]>;
  /** Stored files by part name (`photo[]` counts as `photo`). */
  readonly files: ReadonlyMap<string, readonly MediaRecord[]>;
  readonly stored: readonly MediaRecord[];
  readonly user: HostUser;
}

export interface ReceiveOptions {
  readonly pipeline: UploadPipeline;
  readonly limits: MediaConfig;
  readonly fieldBytes: number;
  /** Which file part names are accepted; any other file part is 400. */
  readonly acceptsFile: (name: string) => boolean;
  /** Authenticates and checks scope from the fields seen so far; runs before any file is stored. */
  readonly authorize: (fields: Readonly<Record<string, string | string[]>>) => Promise<HostUser>;
}

export async function receiveMultipart(request: FastifyRequest, options: ReceiveOptions): Promise<ReceivedMultipart> {
  const { limits } = options;
  // spec: an upload of unknown size is 413 when a total limit applies
  if (limits.maxUploadTotalBytes !== null && request.headers['content-length'] === undefined) throw new PayloadTooLargeError('upload of unknown size');
  const budget = new UploadBudget(limits);
  const fields: Record<string, string | string[]> = {};
  const files = new Map<string, MediaRecord[]>();
  const stored: MediaRecord[] = [];
  let user: HostUser | null = null;
  try {
    for await (const part of readParts(request.raw, { fileBytes: limits.maxUploadBytes, files: limits.maxUploadCount, fieldBytes: options.fieldBytes })) {
      const name = part.name.endsWith('[]') ? part.name.slice(0, -2) : part.name;
      if (part.type === 'field') {
        const existing = fields[part.name];
        fields[part.name] = existing === undefined ? part.value : [...(Array.isArray(existing) ? existing : [existing]), part.value];
        continue;
      }
      user ??= await options.authorize(fields);
      if (!options.acceptsFile(name)) throw new InvalidRequestError(`unexpected file part ${part.name}`);
      const record = await options.pipeline.store({ filename: part.filename, mimetype: part.mimetype, content: part.stream }, user, budget);
      stored.push(record);
      files.set(name, [...(files.get(name) ?? []), record]);
    }
    user ??= await options.authorize(fields);
  } catch (error) {
    await options.pipeline.discard(stored);
    throw error;
  }
  return { fields, files, stored, user };
}
