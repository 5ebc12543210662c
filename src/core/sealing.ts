/**
 * Secrets kept in the database (a silo's access token or app password) are
 * sealed with AES-256-GCM under a key derived from the server secret through
 * the HMAC signer (purpose-separated, like every other key the server derives
 * from `INDIEWEB_SECRET`), so a copy of the database alone reveals none of them.
 * Sealed text: `v1.` + base64url(12-byte IV ‖ ciphertext ‖ 16-byte tag).
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Signer } from './signing.js';

export interface Sealer {
  seal(plain: string): string;
  /** The plain text; throws when the text was not sealed under this key (a changed secret) or was altered. */
  open(sealed: string): string;
}

const PREFIX = 'v1.';

/** A sealer whose key is derived from the server secret for `purpose` (a different purpose, a different key). */
export function createSealer(signer: Pick<Signer, 'sign'>, purpose: string): Sealer {
  let key: Buffer | null = null;
  // derived on first use: a lazily read secret is only read when something is sealed or opened
  const keyOf = () => (key ??= Buffer.from(signer.sign('sealing key', purpose), 'base64url'));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyOf(), iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(sealed) {
      if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed value');
      const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
      if (raw.length < 28) throw new Error('not a sealed value');
      const decipher = createDecipheriv('aes-256-gcm', keyOf(), raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
    },
  };
}
