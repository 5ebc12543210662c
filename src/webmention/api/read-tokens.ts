/**
 * The per-account read token of the webmention.io-compatible API. The token
 * is derived from the server secret and a stored key id, and only its
 * SHA-256 is stored: the database alone never reveals it, while the admin
 * and `indiestack webmention token` can show it again. Rotating stores a new
 * key id and hash, so the old token stops working at once.
 * @module
 */
import type { Clock } from '../../core/clock.js';
import { randomId, sha256Base64Url } from '../../core/crypto.js';
import type { Signer } from '../../core/signing.js';
import type { WebmentionAccountsRepository } from '../../storage/repositories/webmention-accounts.js';

const PURPOSE = 'webmention-read-token';

export type ReadTokens = ReturnType<typeof createReadTokens>;

export function createReadTokens(deps: { accounts: WebmentionAccountsRepository; signer: Signer; clock: Clock }) {
  const { accounts, signer, clock } = deps;
  const derive = (userId: string, keyId: string) => signer.sign(PURPOSE, `${userId}\u0000${keyId}`);

  async function rotate(userId: string): Promise<string> {
    const keyId = randomId(12);
    const token = derive(userId, keyId);
    await accounts.setReadToken(userId, { hash: sha256Base64Url(token), keyId }, clock.now().toISOString());
    return token;
  }

  return {
    /**
     * The account's token: `none` when it has none yet, `stale` when the
     * server secret changed since it was made (the stored hash still opens
     * the API, but the token cannot be shown again: rotate).
     */
    async current(userId: string): Promise<{ state: 'ok'; token: string; createdAt: string | null } | { state: 'none' | 'stale' }> {
      const settings = await accounts.get(userId);
      if (settings?.readKeyId == null || settings.readTokenHash === null) return { state: 'none' };
      const token = derive(userId, settings.readKeyId);
      return sha256Base64Url(token) === settings.readTokenHash
        ? { state: 'ok', token, createdAt: settings.readTokenCreatedAt }
        : { state: 'stale' };
    },

    rotate,

    /** The account a presented token belongs to; null for any token that is not current. */
    async userOf(token: string): Promise<string | null> {
      if (!/^[A-Za-z0-9_-]{20,128}$/.test(token)) return null;
      return accounts.findByReadTokenHash(sha256Base64Url(token));
    },
  };
}
