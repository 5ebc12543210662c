/**
 * POST create and the update, delete and undelete actions.
 * @see SPEC.md "POST create", "POST actions", "Rules for actions"
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { MicropubEntry, MicropubProperties, NewEntry, UpdateOperations } from '../contracts/micropub-types.js';
import { forClient, HandlerFailureError, InvalidRequestError } from '../core/errors.js';
import { callHandler } from '../content/call-handler.js';
import type { MicropubPost } from './parse-request.js';
import { assertNotServerManaged, assertPropertyMap, assertUrlValues, withSanitizedSlug } from './properties.js';

export const ACTIONS = ['update', 'delete', 'undelete'] as const;
export type Action = (typeof ACTIONS)[number];

export function isAction(value: string): value is Action {
  return (ACTIONS as readonly string[]).includes(value);
}

/** Checks a create before anything is stored: server-managed names, URL-typed values, mp-slug. */
export function prepareCreate(entry: NewEntry, serverManaged: ReadonlySet<string>): NewEntry {
  assertNotServerManaged(Object.keys(entry.properties), serverManaged);
  assertUrlValues(entry.properties);
  if (Object.keys(entry.properties).length === 0) throw new InvalidRequestError(forClient('no properties to create an entry from'));
  return { type: entry.type, properties: withSanitizedSlug(entry.properties) };
}

export async function createEntry(handler: MicropubHandler, entry: NewEntry, user: HostUser): Promise<MicropubEntry> {
  const created = await callHandler('create_entry', () => handler.createEntry(entry, user));
  if (typeof created?.url !== 'string' || created.url === '') throw new HandlerFailureError('create_entry returned no URL');
  return created;
}

/**
 * Rule 1: a relative or local reference, or an absolute http(s) URL on the
 * request's host (or the configured base URL's host).
 */
export function assertLocalUrl(url: string | undefined, hosts: readonly string[]): string {
  if (url === undefined || url === '') throw new InvalidRequestError(forClient('url is required'));
  // whitespace and controls would be stripped by the URL parser and could hide a foreign host
  if (/[\u0000-\u0020\u007f-\u00a0\\\s]/.test(url)) throw new InvalidRequestError(forClient('url has whitespace or control characters'));
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url) || url.startsWith('//');
  if (!absolute) return url;
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://relative.invalid');
  } catch {
    throw new InvalidRequestError(forClient('url is not a URL'));
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new InvalidRequestError(forClient('url must be http(s)'));
  if (!hosts.includes(parsed.host.toLowerCase())) throw new InvalidRequestError(forClient('url is on another host'));
  return url;
}

/** Validates the update operations of a JSON update (rules 2, 3 and the shapes). */
export function parseUpdateOperations(body: Readonly<Record<string, unknown>>, serverManaged: ReadonlySet<string>): UpdateOperations {
  const { replace, add } = body;
  const del = body.delete;
  if (replace === undefined && add === undefined && del === undefined)
    throw new InvalidRequestError(forClient('update needs replace, add or delete'));
  const operations: { replace?: MicropubProperties; add?: MicropubProperties; delete?: string[] | MicropubProperties } = {};
  for (const [name, value] of [
    ['replace', replace],
    ['add', add],
  ] as const) {
    if (value === undefined) continue;
    assertPropertyMap(value, name);
    assertNotServerManaged(Object.keys(value), serverManaged);
    assertUrlValues(value);
    operations[name] = value;
  }
  if (del !== undefined) {
    if (Array.isArray(del)) {
      if (!del.every((name) => typeof name === 'string')) throw new InvalidRequestError(forClient('delete must list property names'));
      assertNotServerManaged(del as string[], serverManaged);
      operations.delete = del as string[];
    } else {
      assertPropertyMap(del, 'delete');
      assertNotServerManaged(Object.keys(del), serverManaged);
      operations.delete = del;
    }
  }
  return operations;
}

/** Whether the entry moved, and the entry as the handler returned it (none after a delete). */
export type ActionResult = ({ readonly moved: false } | { readonly moved: true; readonly location: string }) & {
  readonly entry?: MicropubEntry;
};

/** Runs an action whose scope the caller checked. Unchanged URL → moved false. */
export async function runAction(
  handler: MicropubHandler,
  post: Extract<MicropubPost, { kind: 'action' }> & { action: Action },
  url: string,
  user: HostUser,
  options: { serverManaged: ReadonlySet<string>; sameUrl: (submitted: string, returned: string) => boolean },
): Promise<ActionResult> {
  const outcome = (entry: MicropubEntry): ActionResult =>
    typeof entry?.url === 'string' && entry.url !== '' && !options.sameUrl(url, entry.url)
      ? { moved: true, location: entry.url, entry }
      : { moved: false, entry };

  switch (post.action) {
    case 'update': {
      // spec: updates are JSON only
      if (post.bodyType !== 'json') throw new InvalidRequestError(forClient('update must be sent as JSON'));
      const operations = parseUpdateOperations(post.body, options.serverManaged);
      return outcome(await callHandler('update_entry', () => handler.updateEntry(url, operations, user)));
    }
    case 'delete':
      await callHandler('delete_entry', () => handler.deleteEntry(url, user));
      return { moved: false };
    case 'undelete':
      return outcome(await callHandler('undelete_entry', () => handler.undeleteEntry(url, user)));
  }
}
