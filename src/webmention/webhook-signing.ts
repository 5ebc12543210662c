/**
 * How a webhook delivery is signed, the Standard Webhooks way
 * (standardwebhooks.com): `webhook-id` (the delivery's id, the same on every
 * retry, so a receiver can drop a repeat), `webhook-timestamp` (Unix seconds
 * of this attempt, so a receiver can refuse an old one: a replay), and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under
 * the key of a `whsec_<base64 key>` secret. Receivers verify with any
 * Standard Webhooks library (the tests check with the `standardwebhooks`
 * package). And which webhook URLs are accepted: https, or http to loopback.
 * @module
 */
import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
const SECRET_PREFIX = 'whsec_';

/** The `whsec_…` form of a key: what the user copies into the receiver. */
export function webhookSecretOf(key: Buffer): string {
  return `${SECRET_PREFIX}${key.toString('base64')}`;
}

/** The headers that sign `body` as the delivery `id` sent at `at`. */
export function webhookHeaders(key: Buffer, id: string, at: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { [WEBHOOK_ID_HEADER]: id, [WEBHOOK_TIMESTAMP_HEADER]: timestamp, [WEBHOOK_SIGNATURE_HEADER]: `v1,${signature}` };
}

/** A host on this machine: `localhost` (and names below it), 127.0.0.0/8, ::1. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * Why a webhook URL is refused, or null when it is accepted: an http(s) URL
 * without credentials, at most 2,048 characters, and https unless its host is
 * loopback (deliveries carry mention data and are signed, but an http
 * delivery could still be read on the way).
 */
export function webhookUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'the webhook URL is not a URL';
  }
  if (
    (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') ||
    parsed.username !== '' ||
    parsed.password !== '' ||
    url.length > 2048
  )
    return 'the webhook URL must be an http(s) URL';
  if (parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname))
    return 'the webhook URL must use https:// (http:// only for this machine: localhost, 127.0.0.1, ::1)';
  return null;
}
