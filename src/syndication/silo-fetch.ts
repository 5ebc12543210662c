/**
 * The `fetch` the syndication clients speak to Mastodon instances and
 * Bluesky PDSes with. The outbound module cannot send PUT, DELETE or
 * multipart, so this is the same guard for the silos' APIs: every connection's
 * address is checked after DNS (a host that resolves to this machine or a
 * private network is refused unless `INDIEWEB_ALLOW_PRIVATE_NETWORKS`, also
 * when it changes its answer between two lookups), redirects are refused, and
 * an answer is read up to {@link MAX_SILO_ANSWER_BYTES} — a silo we post to is
 * still a server on the internet.
 * @module
 */
import type { Agent, FormData as UndiciFormData, fetch as undiciFetch } from 'undici';
import { guardedLookup } from '../outbound/address-guard.js';
import { SyndicationError } from './client.js';

/** The most of one API answer read; JSON answers of these APIs are a few KiB. */
export const MAX_SILO_ANSWER_BYTES = 4 * 1024 * 1024;

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** undici, loaded on the first request to a silo: ~4 MiB a server that syndicates nowhere never needs (issue 31). */
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

/** A multipart body made with the global FormData, as undici's own fetch takes it. */
function undiciForm(form: FormData, { FormData: UndiciForm }: typeof import('undici')): UndiciFormData {
  const copy = new UndiciForm();
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') copy.append(name, value);
    else copy.append(name, value, value.name);
  }
  return copy;
}

async function readCapped(response: Awaited<ReturnType<typeof undiciFetch>>, host: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body === null) return new Uint8Array(0);
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > MAX_SILO_ANSWER_BYTES) {
      await response.body.cancel().catch(() => undefined);
      throw new SyndicationError(`${host} answered with more than ${MAX_SILO_ANSWER_BYTES} bytes`, { transient: false });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * A guarded `fetch` for one server (make it once: the Bluesky client shares its sessions per fetch function).
 * Errors of the guard reach the caller as fetch errors, which the clients report as "cannot be reached".
 */
export function siloFetch(options: { allowPrivateNetworks: boolean }): typeof fetch {
  let dispatcher: Agent | undefined;
  const guarded = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    const loaded = await loadUndici();
    dispatcher ??= new loaded.Agent({ connect: { lookup: guardedLookup(options.allowPrivateNetworks) as never }, allowH2: false });
    const body = init.body instanceof FormData ? undiciForm(init.body, loaded) : init.body;
    const response = await loaded.fetch(url, { ...(init as object), body: body as never, redirect: 'error', dispatcher });
    const bytes = await readCapped(response, new URL(url).host);
    return new Response(NULL_BODY_STATUSES.has(response.status) ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as Headers,
    });
  };
  return guarded as typeof fetch;
}
