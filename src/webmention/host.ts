/**
 * Host words, spelled once: the "bare host" every webmention rule compares
 * (block and allow lists, the pending-per-host count, own hosts, owners,
 * canonical targets, the API's `domain`). Lower case, IDNA (punycode, as
 * WHATWG URL gives it), no trailing dot, no leading `www.`.
 * @module
 */
import { trimEndOf } from '../core/text.js';

/**
 * The bare form of a host name (`WWW.Spam.Example.` → `spam.example`,
 * `bücher.example` → `xn--bcher-kva.example`); null when it is not a host.
 */
export function bareHostOf(host: string): string | null {
  const word = host.trim();
  // a host alone: no port, path, query or user part (an IPv6 literal keeps its brackets)
  if (/[/?#@\\\s]/.test(word) || (word.includes(':') && !word.startsWith('['))) return null;
  let hostname: string;
  try {
    hostname = new URL(`http://${word}/`).hostname;
  } catch {
    return null;
  }
  const bare = trimEndOf(hostname, '.').replace(/^www\./, '');
  return bare === '' ? null : bare;
}

/** The bare host of a URL's (already parsed) host name; the name itself, lower-cased, in the unlikely case it does not parse again. */
export function bareHost(hostname: string): string {
  return bareHostOf(hostname) ?? trimEndOf(hostname.toLowerCase(), '.').replace(/^www\./, '');
}
