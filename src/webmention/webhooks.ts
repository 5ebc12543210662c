/**
 * Webhooks: per account a URL, and a secret derived from the server secret
 * (only a key id is stored). When one of the account's public mentions is
 * verified, approved, updated or deleted (410, link removed), a delivery is
 * stored and sent by a durable job: a POST of webmention.io's webhook JSON
 * (`source`, `target`, `private`, `post` as JF2, or `deleted: true`), signed
 * the Standard Webhooks way in headers (webhook-signing.ts: id, timestamp,
 * HMAC-SHA256 over `id.timestamp.body` under a `whsec_` secret). The body
 * carries the `secret` too, first, only for a webhook the user marked
 * webmention.io-compatible (receivers written for webmention.io compare it).
 * Webhook URLs are https (http only to loopback), checked when saved and
 * again before each delivery. Failures are retried with the job queue's
 * backoff; every attempt is logged for the admin, who can send a delivery
 * again. The URL goes through the outbound guard.
 * @module
 */
import type { Clock } from '../core/clock.js';
import { randomId } from '../core/crypto.js';
import { forClient, InvalidRequestError, NotFoundError } from '../core/errors.js';
import { webhookHeaders, webhookSecretOf, webhookUrlProblem } from './webhook-signing.js';
import type { Signer } from '../core/signing.js';
import { OutboundError, type Outbound } from '../outbound/fetch.js';
import type { JobRecord, JobsRepository } from '../storage/repositories/jobs.js';
import type { WebhookDeliveriesRepository, WebhookDelivery } from '../storage/repositories/webhook-deliveries.js';
import type { WebmentionAccountsRepository } from '../storage/repositories/webmention-accounts.js';
import { isPublicMention } from '../storage/repositories/public-mention.js';
import type { WebmentionRecord } from '../storage/repositories/webmentions.js';
import { toJf2 } from './api/format.js';
import { RetryLaterError, type JobHandler } from '../jobs/worker.js';

export const WEBHOOK_JOB = 'webmention.webhook';
export type WebhookEvent = 'verified' | 'approved' | 'updated' | 'deleted' | 'test';

export type Webhooks = ReturnType<typeof createWebhooks>;

export function createWebhooks(deps: {
  accounts: WebmentionAccountsRepository;
  deliveries: WebhookDeliveriesRepository;
  jobs: JobsRepository;
  outbound: Outbound;
  signer: Signer;
  clock: Clock;
  onEnqueued?: () => void;
}) {
  const { accounts, deliveries, jobs, outbound, signer, clock } = deps;
  const now = () => clock.now().toISOString();
  // 32 bytes derived from the server secret and the key id (only the id is stored)
  const keyOf = (userId: string, keyId: string) =>
    Buffer.from(signer.sign('webmention-webhook-secret', `${userId}\u0000${keyId}`), 'base64url');
  const secretOf = (userId: string, keyId: string) => webhookSecretOf(keyOf(userId, keyId));

  async function enqueue(
    userId: string,
    url: string,
    event: WebhookEvent,
    webmentionId: string | null,
    payload: Record<string, unknown>,
  ): Promise<string> {
    const id = randomId();
    const at = now();
    await deliveries.create({ id, userId, webmentionId, event, url, body: JSON.stringify(payload), now: at });
    await jobs.enqueue({ id: randomId(), kind: WEBHOOK_JOB, ref: id, now: at });
    deps.onEnqueued?.();
    return id;
  }

  const job: JobHandler = {
    async run(record: JobRecord) {
      const delivery = await deliveries.find(record.ref);
      if (delivery === null) return;
      const settings = await accounts.get(delivery.userId);
      if (settings?.webhookKeyId == null) {
        await deliveries.record(delivery.id, { status: 'failed', httpStatus: null, error: 'the webhook was removed', now: now() });
        return;
      }
      // saved before http:// was refused: never sent in clear, and no retry can change that
      const problem = webhookUrlProblem(delivery.url);
      if (problem !== null) {
        await deliveries.record(delivery.id, { status: 'failed', httpStatus: null, error: `${problem}: not sent`, now: now() });
        return;
      }
      const payload = JSON.parse(delivery.body) as Record<string, unknown>;
      // webmention.io-compatible: the secret goes first, as webmention.io sends it; it is never stored with the delivery
      const body = JSON.stringify(
        settings.webhookWebmentionIo ? { secret: secretOf(delivery.userId, settings.webhookKeyId), ...payload } : payload,
      );
      let status: number;
      try {
        const response = await outbound.fetch(delivery.url, {
          method: 'POST',
          raw: { contentType: 'application/json', data: body },
          // the delivery id stays the same on every retry; the timestamp is this attempt's
          headers: { accept: '*/*', ...webhookHeaders(keyOf(delivery.userId, settings.webhookKeyId), delivery.id, clock.now(), body) },
          maxRedirects: 0,
        });
        status = response.status;
      } catch (error) {
        const reason = error instanceof OutboundError ? error.message : 'the request failed';
        await deliveries.record(delivery.id, { status: 'failed', httpStatus: null, error: reason, now: now() });
        throw new RetryLaterError(reason, { cause: error });
      }
      if (status >= 200 && status < 300) {
        await deliveries.record(delivery.id, { status: 'delivered', httpStatus: status, error: null, now: now() });
        return;
      }
      await deliveries.record(delivery.id, { status: 'failed', httpStatus: status, error: `answered ${status}`, now: now() });
      throw new RetryLaterError(`the webhook answered ${status}`);
    },
    async giveUp() {
      // the delivery already says why its last attempt failed
    },
  };

  return {
    job,

    /** Queues a delivery for a mention's owner, when the owner has a webhook. */
    async notify(record: WebmentionRecord, event: Exclude<WebhookEvent, 'test'>): Promise<void> {
      if (record.ownerId === null) return;
      // public only (public-mention.ts): a held, rejected, spam, pending or failed mention is never sent; `deleted` tells of one that was public
      if (event !== 'deleted' && !isPublicMention(record)) return;
      const settings = await accounts.get(record.ownerId);
      if (settings?.webhookUrl == null) return;
      const common = { source: record.source, target: record.target, private: false };
      await enqueue(
        record.ownerId,
        settings.webhookUrl,
        event,
        record.id,
        event === 'deleted' ? { ...common, deleted: true } : { ...common, post: toJf2(record) },
      );
    },

    /**
     * Sets (or with null, removes) the account's webhook URL and whether its
     * body carries the secret (webmention.io-compatible); a new secret is
     * made when there was none. 400 for a URL that is not https (or http to
     * loopback).
     */
    async setUrl(userId: string, url: string | null, options: { webmentionIo?: boolean } = {}): Promise<void> {
      if (url !== null) {
        const problem = webhookUrlProblem(url);
        if (problem !== null) throw new InvalidRequestError(forClient(problem));
      }
      const settings = await accounts.get(userId);
      await accounts.setWebhook(
        userId,
        {
          url,
          keyId: url === null ? null : (settings?.webhookKeyId ?? randomId(12)),
          webmentionIo: url !== null && options.webmentionIo === true,
        },
        now(),
      );
    },

    async rotateSecret(userId: string): Promise<void> {
      const settings = await accounts.get(userId);
      await accounts.setWebhook(
        userId,
        { url: settings?.webhookUrl ?? null, keyId: randomId(12), webmentionIo: settings?.webhookWebmentionIo ?? false },
        now(),
      );
    },

    /** The account's webhook URL, secret (`whsec_…`) and whether the body carries it; null when it has none. */
    async settingsOf(userId: string): Promise<{ url: string; secret: string; webmentionIo: boolean } | null> {
      const settings = await accounts.get(userId);
      if (settings?.webhookUrl == null || settings.webhookKeyId === null) return null;
      return { url: settings.webhookUrl, secret: secretOf(userId, settings.webhookKeyId), webmentionIo: settings.webhookWebmentionIo };
    },

    /** A test delivery with a sample post. */
    async sendTest(userId: string): Promise<void> {
      const settings = await accounts.get(userId);
      if (settings?.webhookUrl == null) throw new InvalidRequestError(forClient('there is no webhook URL'));
      await enqueue(userId, settings.webhookUrl, 'test', null, {
        source: 'https://example.com/a-post',
        target: 'https://example.com/your-post',
        private: false,
        post: { type: 'entry', url: 'https://example.com/a-post', 'wm-property': 'mention-of' },
      });
    },

    /** Sends a delivery of the account's again. */
    async sendAgain(userId: string, deliveryId: string): Promise<void> {
      const delivery = await deliveries.find(deliveryId);
      if (delivery === null || delivery.userId !== userId) throw new NotFoundError(`no delivery ${deliveryId}`);
      await deliveries.reset(delivery.id, now());
      await jobs.enqueue({ id: randomId(), kind: WEBHOOK_JOB, ref: delivery.id, now: now() });
      deps.onEnqueued?.();
    },

    list: (userId: string): Promise<WebhookDelivery[]> => deliveries.listOf(userId),
  };
}
