import type { Kysely } from 'kysely';
import type { Database, WebhookDeliveryRow } from '../schema.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  readonly id: string;
  readonly userId: string;
  readonly webmentionId: string | null;
  /** verified, approved, updated, deleted, test */
  readonly event: string;
  readonly url: string;
  /** The JSON body without the secret. */
  readonly body: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly httpStatus: number | null;
  readonly lastError: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export type WebhookDeliveriesRepository = ReturnType<typeof createWebhookDeliveriesRepository>;

function toDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    userId: row.user_id,
    webmentionId: row.webmention_id,
    event: row.event,
    url: row.url,
    body: row.body,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createWebhookDeliveriesRepository(db: Kysely<Database>) {
  return {
    async create(input: {
      id: string;
      userId: string;
      webmentionId: string | null;
      event: string;
      url: string;
      body: string;
      now: string;
    }): Promise<void> {
      await db
        .insertInto('indieweb_webhook_delivery')
        .values({
          id: input.id,
          user_id: input.userId,
          webmention_id: input.webmentionId,
          event: input.event,
          url: input.url,
          body: input.body,
          status: 'pending',
          attempts: 0,
          created_at: input.now,
          updated_at: input.now,
        })
        .execute();
    },

    async find(id: string): Promise<WebhookDelivery | null> {
      const row = await db.selectFrom('indieweb_webhook_delivery').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : toDelivery(row);
    },

    /** One attempt's outcome. */
    async record(
      id: string,
      outcome: { status: DeliveryStatus; httpStatus: number | null; error: string | null; now: string },
    ): Promise<void> {
      await db
        .updateTable('indieweb_webhook_delivery')
        .set((eb) => ({
          status: outcome.status,
          http_status: outcome.httpStatus,
          last_error: outcome.error,
          updated_at: outcome.now,
          attempts: eb('attempts', '+', 1) as never,
        }))
        .where('id', '=', id)
        .execute();
    },

    /** Queued again ("send again"). */
    async reset(id: string, now: string): Promise<void> {
      await db.updateTable('indieweb_webhook_delivery').set({ status: 'pending', updated_at: now }).where('id', '=', id).execute();
    },

    /** An account's deliveries, newest first. */
    async listOf(userId: string, limit = 50): Promise<WebhookDelivery[]> {
      const rows = await db
        .selectFrom('indieweb_webhook_delivery')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toDelivery);
    },
  };
}
