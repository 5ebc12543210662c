/**
 * Sending Webmentions: discover each target's endpoint, then POST the
 * `source` and `target` form to it. Batch work: one result per target, and
 * the batch never throws.
 * @see https://www.w3.org/TR/webmention/#sending-webmentions
 * @see SPEC.md "Webmention endpoints" rules 3 and 4
 * @module
 */
import { OutboundError, type Outbound } from '../outbound/fetch.js';
import { resolveHttpUrl } from '../core/url.js';
import { discoverEndpoint, isHtmlResponse, responseText } from './discover.js';
import { ParseFailure } from '../html/pool.js';

/** The module whose `targetsInHtml` the parse pool runs. */
const SEND_PAGE_MODULE = new URL('./send-page.js', import.meta.url);

export const SEND_STATUSES = ['sent', 'no-endpoint', 'failed'] as const;
export type SendStatus = (typeof SEND_STATUSES)[number];

/** What happened to one target. */
export interface SendResult {
  readonly target: string;
  /** `sent`: the endpoint answered 2xx; `no-endpoint`: the target advertises none; `failed`: anything else. */
  readonly status: SendStatus;
  /** The discovered endpoint, when there was one. */
  readonly endpoint?: string;
  /** The endpoint's HTTP status, when it answered. */
  readonly httpStatus?: number;
  /** Why it failed, one line, for people. */
  readonly error?: string;
}

/** Reported while a batch runs; `index` counts from 0 in target order. */
export type SendProgress =
  | { readonly kind: 'reading-source'; readonly source: string }
  | { readonly kind: 'sending'; readonly index: number; readonly total: number; readonly target: string }
  | { readonly kind: 'done'; readonly index: number; readonly total: number; readonly result: SendResult };

export interface SendWebmentionsOptions {
  /** The URL of the page that mentions the targets. */
  readonly source: string;
  /** The URLs to notify; when absent, the links of the source page (see {@link findTargets}). */
  readonly targets?: readonly string[];
  /** The outbound HTTP client every request goes through (address guard, redirect, time and size caps). */
  readonly outbound: Outbound;
  readonly onProgress?: (event: SendProgress) => void;
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? '';
}

/**
 * The pages a source links to: the distinct absolute http(s) `<a href>`
 * targets inside its first h-entry (the whole page when it has none),
 * resolved against the source's final URL, fragments dropped, links to the
 * source itself left out.
 *
 * @throws {OutboundError} when the source cannot be fetched or does not answer 2xx.
 */
export async function findTargets(outbound: Outbound, source: string): Promise<string[]> {
  const response = await outbound.fetch(source, { method: 'GET' });
  if (response.status < 200 || response.status > 299) throw new OutboundError(`source answered ${response.status}`, response.status >= 500);
  if (!isHtmlResponse(response)) return [];
  // read in the parse pool, off the event loop, within its bounds (issue 28 class 1)
  try {
    return await outbound.read<string[]>(SEND_PAGE_MODULE, 'targetsInHtml', [responseText(response), response.url, source]);
  } catch (error) {
    if (error instanceof ParseFailure) throw new OutboundError(`source page could not be read: ${error.message}`, error.kind === 'busy');
    throw error;
  }
}

/** One attempt's result, and whether trying again later may help (a timeout, a refused connection, a 5xx, 408 or 429). */
export interface SendAttempt {
  readonly result: SendResult;
  readonly retry: boolean;
}

const RETRY_STATUSES = new Set([408, 429]);

/**
 * Discovers the target's endpoint afresh and POSTs `source` and `target` to
 * it: one attempt, never throwing. The job queue retries what `retry` marks.
 */
export async function attemptWebmention(outbound: Outbound, source: string, target: string): Promise<SendAttempt> {
  if (resolveHttpUrl(target) === null) return { result: { target, status: 'failed', error: 'not an absolute http(s) URL' }, retry: false };
  let endpoint: string | null;
  try {
    ({ endpoint } = await discoverEndpoint(outbound, target));
  } catch (error) {
    return {
      result: { target, status: 'failed', error: `discovery failed: ${reason(error)}` },
      retry: error instanceof OutboundError && error.transient,
    };
  }
  if (endpoint === null) return { result: { target, status: 'no-endpoint' }, retry: false };
  try {
    // spec: source and target go in the form body, never appended to the endpoint's own query string
    const response = await outbound.fetch(endpoint, { method: 'POST', form: { source, target }, headers: { accept: '*/*' } });
    if (response.status >= 200 && response.status <= 299)
      return { result: { target, status: 'sent', endpoint, httpStatus: response.status }, retry: false };
    return {
      result: { target, status: 'failed', endpoint, httpStatus: response.status, error: `endpoint answered ${response.status}` },
      retry: response.status >= 500 || RETRY_STATUSES.has(response.status),
    };
  } catch (error) {
    return {
      result: { target, status: 'failed', endpoint, error: `delivery failed: ${reason(error)}` },
      retry: error instanceof OutboundError && error.transient,
    };
  }
}

async function sendOne(outbound: Outbound, source: string, target: string): Promise<SendResult> {
  return (await attemptWebmention(outbound, source, target)).result;
}

/**
 * Sends a Webmention from `source` to each target, one after the other, and
 * resolves to one result per target in the order given (duplicates dropped).
 * Never throws: every problem becomes a `failed` result. When `targets` is
 * absent and the source page cannot be read, the one result is a `failed`
 * result whose `target` is the source itself.
 *
 * @example
 * ```ts
 * const outbound = createOutbound({ allowPrivateNetworks: false });
 * try {
 *   const results = await sendWebmentions({ source: 'https://me.example/notes/1', outbound });
 *   const failed = results.filter((r) => r.status === 'failed');
 * } finally {
 *   await outbound.close();
 * }
 * ```
 * @see SPEC.md "Webmention endpoints" rule 4 (`send_webmentions`)
 */
export async function sendWebmentions(options: SendWebmentionsOptions): Promise<SendResult[]> {
  const { source, outbound } = options;
  const report = (event: SendProgress): void => {
    try {
      options.onProgress?.(event);
    } catch {
      // a progress display must not break the batch
    }
  };
  const sourceIsHttp = resolveHttpUrl(source) !== null;
  let targets: string[];
  if (options.targets !== undefined) {
    targets = [...new Set(options.targets)];
  } else {
    if (!sourceIsHttp) return [{ target: source, status: 'failed', error: 'the source is not an absolute http(s) URL' }];
    report({ kind: 'reading-source', source });
    try {
      targets = await findTargets(outbound, source);
    } catch (error) {
      return [{ target: source, status: 'failed', error: `cannot read the source: ${reason(error)}` }];
    }
  }
  const results: SendResult[] = [];
  for (const [index, target] of targets.entries()) {
    report({ kind: 'sending', index, total: targets.length, target });
    const result = sourceIsHttp
      ? await sendOne(outbound, source, target)
      : { target, status: 'failed' as const, error: 'the source is not an absolute http(s) URL' };
    results.push(result);
    report({ kind: 'done', index, total: targets.length, result });
  }
  return results;
}
