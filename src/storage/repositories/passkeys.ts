import type { Kysely } from 'kysely';
import type { Database, PasskeyRow } from '../schema.js';

/** A registered passkey: its public key and counter, never anything secret (the private key stays in the authenticator). */
export interface PasskeyRecord {
  readonly id: string;
  readonly userId: string;
  /** base64url, as the authenticator names the credential. */
  readonly credentialId: string;
  /** COSE public key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly name: string;
  /** `singleDevice`, or `multiDevice` (a synced passkey). */
  readonly deviceType: string;
  readonly backedUp: boolean;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

export type PasskeysRepository = ReturnType<typeof createPasskeysRepository>;

function toPasskey(row: PasskeyRow): PasskeyRecord {
  let transports: unknown;
  try {
    transports = JSON.parse(row.transports);
  } catch {
    transports = [];
  }
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: Array.isArray(transports) ? transports.filter((value): value is string => typeof value === 'string') : [],
    name: row.name,
    deviceType: row.device_type,
    backedUp: Number(row.backed_up) === 1,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export function createPasskeysRepository(db: Kysely<Database>) {
  return {
    /** A credential id already registered throws a unique violation. */
    async insert(passkey: Omit<PasskeyRecord, 'lastUsedAt'>): Promise<void> {
      await db
        .insertInto('indieweb_passkey')
        .values({
          id: passkey.id,
          user_id: passkey.userId,
          credential_id: passkey.credentialId,
          public_key: passkey.publicKey,
          counter: passkey.counter,
          transports: JSON.stringify(passkey.transports),
          name: passkey.name,
          device_type: passkey.deviceType,
          backed_up: passkey.backedUp ? 1 : 0,
          created_at: passkey.createdAt,
        })
        .execute();
    },

    async findByCredentialId(credentialId: string): Promise<PasskeyRecord | null> {
      const row = await db.selectFrom('indieweb_passkey').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
      return row === undefined ? null : toPasskey(row);
    },

    /** The user's passkeys, oldest first. */
    async listByUser(userId: string): Promise<PasskeyRecord[]> {
      const rows = await db
        .selectFrom('indieweb_passkey')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toPasskey);
    },

    async countByUser(userId: string): Promise<number> {
      const row = await db
        .selectFrom('indieweb_passkey')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /**
     * Records a sign-in with the counter the authenticator reported. One
     * conditional UPDATE: the stored counter only moves forward (or stays at 0
     * for authenticators that keep none), so of two sign-ins presenting the
     * same counter (a cloned credential, a replay racing on another
     * instance) at most one is recorded. Returns whether it was.
     */
    async recordUse(id: string, counter: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('indieweb_passkey')
        .set({ counter, last_used_at: now })
        .where('id', '=', id)
        // an authenticator without a counter reports 0 every time: accepted while the stored one is 0 too
        .where((eb) => (counter === 0 ? eb('counter', '=', 0) : eb('counter', '<', counter)))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Removes one of the user's passkeys; another user's id removes nothing. */
    async remove(userId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('indieweb_passkey').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}
