/**
 * Micropub POST bodies (form, JSON, multipart fields) → one typed request.
 * @see SPEC.md "POST create", "POST actions"
 * @module
 */
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../core/request-limits.js';
import type { MicropubProperties, NewEntry } from '../contracts/micropub-types.js';
import { excerpt, forClient, InvalidRequestError } from '../core/errors.js';
import { UnreadableJsonBody } from '../web/body-parsers.js';
import { assertPropertyMap } from './properties.js';

export type BodyType = 'form' | 'json' | 'multipart';

export type MicropubPost =
  | { readonly kind: 'create'; readonly entry: NewEntry; readonly bodyType: BodyType }
  | {
      readonly kind: 'action';
      readonly action: string;
      readonly url: string | undefined;
      readonly body: Readonly<Record<string, unknown>>;
      readonly bodyType: BodyType;
    };

/** Fields that carry credentials, never properties of an entry. */
const CREDENTIAL_FIELDS = new Set(['access_token', 'Authorization']);

/**
 * Form fields → properties: every value becomes an array, `name[]` means
 * `name`, only `category` is comma-split, `h` gives the type. Names are
 * collected in a Map and the properties built with `Object.fromEntries`, so
 * `__proto__` and friends stay ordinary property names.
 */
export function parseFormPost(
  fields: unknown,
  bodyType: 'form' | 'multipart' = 'form',
  limits: RequestLimits = DEFAULT_REQUEST_LIMITS,
): MicropubPost {
  if (fields instanceof UnreadableJsonBody)
    throw new InvalidRequestError(forClient('request body is not readable'), { cause: fields.cause });
  if (typeof fields !== 'object' || fields === null) throw new InvalidRequestError(forClient('the body must be a form'));
  const collected = new Map<string, string[]>();
  for (const [key, raw] of Object.entries(fields)) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    if (name === '' || CREDENTIAL_FIELDS.has(name)) continue;
    const values = (Array.isArray(raw) ? raw : [raw]).filter((value): value is string => typeof value === 'string');
    const existing = collected.get(name);
    if (existing === undefined) collected.set(name, values);
    else existing.push(...values);
    if (collected.size > limits.properties) throw new InvalidRequestError(forClient(`more than ${limits.properties} properties`));
    if ((existing ?? values).length > limits.valuesPerProperty)
      throw new InvalidRequestError(forClient(`more than ${limits.valuesPerProperty} values for ${excerpt(name)}`));
  }

  const action = collected.get('action');
  if (action !== undefined) {
    const url = collected.get('url');
    if (action.length !== 1 || (url !== undefined && url.length !== 1))
      throw new InvalidRequestError(forClient('action and url must be given once'));
    return { kind: 'action', action: action[0] ?? '', url: url?.[0], body: Object.fromEntries(collected), bodyType };
  }

  const h = collected.get('h');
  collected.delete('h');
  if (h !== undefined && (h.length !== 1 || !/^[a-z][a-z0-9-]*$/.test(h[0] ?? '')))
    throw new InvalidRequestError(forClient('h must be one microformats type name'));
  const category = collected.get('category');
  if (category !== undefined) {
    // spec: only category is comma-split in form bodies
    const split = category
      .flatMap((value) => value.split(','))
      .map((value) => value.trim())
      .filter((value) => value !== '');
    if (split.length > limits.valuesPerProperty)
      throw new InvalidRequestError(forClient(`more than ${limits.valuesPerProperty} values for category`));
    collected.set('category', split);
  }
  const properties: MicropubProperties = Object.fromEntries(collected);
  return { kind: 'create', entry: { type: [`h-${h?.[0] ?? 'entry'}`], properties }, bodyType };
}

/** A JSON body: an object, either an action (`action`, `url`, operations) or `{ type, properties }`. */
export function parseJsonPost(body: unknown): MicropubPost {
  if (body instanceof UnreadableJsonBody)
    throw new InvalidRequestError(forClient('request body is not valid UTF-8 JSON'), { cause: body.cause });
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidRequestError(forClient('the JSON body must be an object'));
  const object = body as Record<string, unknown>;
  if ('action' in object) {
    if (typeof object.action !== 'string') throw new InvalidRequestError(forClient('action must be a string'));
    if (object.url !== undefined && typeof object.url !== 'string') throw new InvalidRequestError(forClient('url must be a string'));
    return { kind: 'action', action: object.action, url: object.url as string | undefined, body: object, bodyType: 'json' };
  }
  const type = object.type ?? ['h-entry'];
  if (!Array.isArray(type) || type.length === 0 || !type.every((t) => typeof t === 'string'))
    throw new InvalidRequestError(forClient('type must be an array of strings'));
  const properties = object.properties ?? {};
  assertPropertyMap(properties, 'properties');
  return { kind: 'create', entry: { type: type as string[], properties }, bodyType: 'json' };
}
