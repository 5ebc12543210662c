/**
 * Passkeys (WebAuthn) for the built-in accounts: registering one, signing in
 * with one, listing and removing them, and passkey-only sign-in. The
 * ceremonies are `@simplewebauthn/server`'s; this module keeps what they need
 * between the two requests of a ceremony — a registration's challenge in the
 * database (taken once, by any instance), a sign-in's signed and stateless
 * (sign-in-challenges.ts) — and decides what a person is told when one is
 * refused.
 * @see docs/accounts.md "Passkeys"
 * @module
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../../core/clock.js';
import type { Signer } from '../../core/signing.js';
import { addSeconds } from '../../core/clock.js';
import { randomId } from '../../core/crypto.js';
import {
  ConflictError,
  forClient,
  InvalidRequestError,
  NotFoundError,
  PasskeyRefusedError,
  type PasskeyRefusal,
} from '../../core/errors.js';
import { isUniqueViolation } from '../../storage/errors.js';
import type { PasskeyRecord, PasskeysRepository } from '../../storage/repositories/passkeys.js';
import type { UserRecord, UsersRepository } from '../../storage/repositories/users.js';
import type { ChallengePurpose, WebauthnChallengesRepository } from '../../storage/repositories/webauthn-challenges.js';
import { createSignInChallenges } from './sign-in-challenges.js';

/** Seconds a ceremony's challenge can be answered; the browser is given a little less. */
export const CHALLENGE_LIFETIME_S = 300;
const BROWSER_TIMEOUT_MS = 240_000;
/** Longest passkey name. */
export const MAX_PASSKEY_NAME_LENGTH = 64;
/** Longest answer of an authenticator accepted (attestation certificates included). */
export const MAX_CEREMONY_RESPONSE_LENGTH = 64 * 1024;

/** What a person is told when a ceremony is refused: written for them, no internals. */
export const REFUSAL_MESSAGES: Readonly<Record<PasskeyRefusal, string>> = {
  malformed: 'The answer of your passkey could not be read. Try again.',
  challenge: 'This passkey request expired or was already used. Try again.',
  origin: 'The passkey answered for another site. Open this server at its own address and try again.',
  unknown_credential: 'This passkey is not registered here (it may have been removed). Sign in another way.',
  counter:
    'This passkey was refused: its signature counter went backwards, so it may have been copied. If it is yours, remove it and register it again.',
  verification: 'The passkey could not be verified. Try again.',
  duplicate: 'This passkey is already registered.',
  inactive: 'Sign-in failed: this account cannot sign in.',
};

/** The relying party: the host of the base URL is the RP ID, its origin the only origin accepted. */
export function relyingPartyOf(baseUrl: string): { readonly id: string; readonly origin: string } {
  const url = new URL(baseUrl);
  return { id: url.hostname, origin: url.origin };
}

export interface CeremonyStart<Options> {
  /** The id of the stored challenge, sent back with the answer. */
  readonly challengeId: string;
  readonly options: Options;
}

export interface CeremonyAnswer {
  readonly challengeId: string;
  /** The browser's JSON answer as posted (startRegistration / startAuthentication). */
  readonly response: string;
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;

function refuse(reason: PasskeyRefusal, log?: string, cause?: unknown): never {
  throw new PasskeyRefusedError(reason, forClient(REFUSAL_MESSAGES[reason]), {
    description: REFUSAL_MESSAGES[reason],
    ...(cause === undefined ? {} : { cause: log === undefined ? cause : new Error(log, { cause }) }),
  });
}

function parseAnswer<T extends { id: string; response: { clientDataJSON: string } }>(text: string): T {
  if (text.length === 0 || text.length > MAX_CEREMONY_RESPONSE_LENGTH) refuse('malformed');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    refuse('malformed');
  }
  const answer = parsed as Partial<T> | null;
  if (
    typeof answer !== 'object' ||
    answer === null ||
    typeof answer.id !== 'string' ||
    typeof answer.response !== 'object' ||
    answer.response === null
  )
    refuse('malformed');
  if (typeof (answer.response as { clientDataJSON?: unknown }).clientDataJSON !== 'string') refuse('malformed');
  return answer as T;
}

/**
 * `@simplewebauthn/server` and the crypto libraries under it (about 10 MiB of a
 * server's memory) are loaded by the first ceremony, not when the server
 * starts (issue 31): most servers never see one.
 */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));
let helpers: Promise<typeof import('@simplewebauthn/server/helpers')> | undefined;
const webauthnHelpers = () => (helpers ??= import('@simplewebauthn/server/helpers'));

/** The client data's origin and challenge, read before verification so a refusal can say which one was wrong. */
async function clientDataOf(clientDataJSON: string): Promise<{ origin: string; challenge: string }> {
  const { decodeClientDataJSON } = await webauthnHelpers();
  try {
    const data = decodeClientDataJSON(clientDataJSON);
    if (typeof data.origin !== 'string' || typeof data.challenge !== 'string') refuse('malformed');
    return data;
  } catch (error) {
    if (error instanceof PasskeyRefusedError) throw error;
    return refuse('malformed');
  }
}

export function createPasskeyService(deps: {
  passkeys: PasskeysRepository;
  challenges: WebauthnChallengesRepository;
  users: UsersRepository;
  clock: Clock;
  baseUrl: string;
  /** Signs the sign-in challenges (stateless, issue 28 F8); absent where no one signs in (the CLI). */
  signer?: Signer;
}) {
  const { passkeys, challenges, users, clock } = deps;
  const rp = relyingPartyOf(deps.baseUrl);
  const signInChallenges =
    deps.signer === undefined
      ? null
      : createSignInChallenges({ signer: deps.signer, clock, lifetimeSeconds: CHALLENGE_LIFETIME_S, used: challenges });
  const requireSignInChallenges = () => {
    if (signInChallenges === null) throw new Error('passkey sign-in needs the server secret (signer)');
    return signInChallenges;
  };
  const now = () => clock.now().toISOString();

  async function storeChallenge(challenge: string, purpose: ChallengePurpose, userId: string | null): Promise<string> {
    const at = clock.now();
    // expired challenges of abandoned ceremonies go as new ones come, so the table stays as small as the traffic of a few minutes
    await challenges.deleteExpired(at.toISOString());
    const id = randomId(16);
    await challenges.insert({
      id,
      challenge,
      purpose,
      userId,
      createdAt: at.toISOString(),
      expiresAt: addSeconds(at, CHALLENGE_LIFETIME_S).toISOString(),
    });
    return id;
  }

  /** The stored challenge of an answer, taken for good; the answer must have signed it, at our origin. */
  async function takeChallenge(
    answer: CeremonyAnswer,
    purpose: ChallengePurpose,
    clientDataJSON: string,
  ): Promise<{ challenge: string; userId: string | null }> {
    const data = await clientDataOf(clientDataJSON);
    const taken = answer.challengeId === '' ? null : await challenges.take(answer.challengeId, purpose, now());
    if (taken === null) refuse('challenge');
    // security: a page on another origin (a phishing copy) got the browser to sign; said before anything else is checked
    if (data.origin !== rp.origin) refuse('origin', `origin ${JSON.stringify(data.origin.slice(0, 200))}`);
    if (data.challenge !== taken.challenge) refuse('challenge');
    return taken;
  }

  async function requireUser(id: string): Promise<UserRecord> {
    const user = await users.findById(id);
    if (user === null) throw new NotFoundError('no such user');
    return user;
  }

  return {
    relyingParty: rp,

    list: (userId: string): Promise<PasskeyRecord[]> => passkeys.listByUser(userId),

    async registrationOptions(user: {
      readonly id: string;
      readonly name: string;
    }): Promise<CeremonyStart<PublicKeyCredentialCreationOptionsJSON>> {
      const existing = await passkeys.listByUser(user.id);
      const options = await (
        await webauthn()
      ).generateRegistrationOptions({
        rpName: `indiestack (${rp.id})`,
        rpID: rp.id,
        userName: user.name,
        userID: new Uint8Array(Buffer.from(user.id, 'utf8')),
        attestationType: 'none',
        timeout: BROWSER_TIMEOUT_MS,
        // the authenticator that holds one of them already is not offered again
        excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: [...passkey.transports] })),
        // a passkey: found by the browser without a user name, unlocked by the person (PIN, fingerprint, face)
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      return { challengeId: await storeChallenge(options.challenge, 'registration', user.id), options };
    },

    /** Verifies a registration answer and stores the passkey under `name` (trimmed; a default when empty). */
    async register(user: { readonly id: string }, answer: CeremonyAnswer & { readonly name: string }): Promise<PasskeyRecord> {
      const name = answer.name.trim();
      if (name.length > MAX_PASSKEY_NAME_LENGTH)
        throw new InvalidRequestError(forClient(`The name may have at most ${MAX_PASSKEY_NAME_LENGTH} characters.`));
      const response = parseAnswer<RegistrationResponseJSON>(answer.response);
      const taken = await takeChallenge(answer, 'registration', response.response.clientDataJSON);
      if (taken.userId !== user.id) refuse('challenge');
      let verification;
      try {
        verification = await (
          await webauthn()
        ).verifyRegistrationResponse({
          response,
          expectedChallenge: taken.challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: true,
        });
      } catch (error) {
        refuse('verification', undefined, error);
      }
      if (!verification.verified) refuse('verification');
      const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
      const count = await passkeys.countByUser(user.id);
      const record = {
        id: randomId(),
        userId: user.id,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
        name: name === '' ? `Passkey ${count + 1}` : name,
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
        createdAt: now(),
      };
      try {
        await passkeys.insert(record);
      } catch (error) {
        if (isUniqueViolation(error)) refuse('duplicate', undefined, error);
        throw error;
      }
      return { ...record, lastUsedAt: null };
    },

    /** A sign-in challenge: signed, expiring, and nothing written (anyone who loads the sign-in page asks for one). */
    async authenticationOptions(): Promise<CeremonyStart<PublicKeyCredentialRequestOptionsJSON>> {
      const issued = requireSignInChallenges().issue();
      // no allowCredentials: the browser offers the passkeys it holds for us, so no user name is typed or revealed
      const options = await (
        await webauthn()
      ).generateAuthenticationOptions({
        rpID: rp.id,
        userVerification: 'required',
        timeout: BROWSER_TIMEOUT_MS,
        challenge: issued.challenge,
      });
      return { challengeId: issued.id, options };
    },

    /** Verifies a sign-in answer; the active user whose passkey signed it, or a {@link PasskeyRefusedError}. */
    async authenticate(answer: CeremonyAnswer): Promise<{ user: UserRecord; passkey: PasskeyRecord }> {
      const response = parseAnswer<AuthenticationResponseJSON>(answer.response);
      const data = await clientDataOf(response.response.clientDataJSON);
      const taken = requireSignInChallenges().open(answer.challengeId);
      if (taken === null) refuse('challenge');
      // security: a page on another origin (a phishing copy) got the browser to sign; said before anything else is checked
      if (data.origin !== rp.origin) refuse('origin', `origin ${JSON.stringify(data.origin.slice(0, 200))}`);
      if (data.challenge !== taken.challenge) refuse('challenge');
      const passkey = await passkeys.findByCredentialId(response.id);
      if (passkey === null) refuse('unknown_credential');
      const user = await users.findById(passkey.userId);
      if (user === null || !user.isActive) refuse('inactive');
      let verification;
      try {
        verification = await (
          await webauthn()
        ).verifyAuthenticationResponse({
          response,
          expectedChallenge: taken.challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          credential: {
            id: passkey.credentialId,
            publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
            counter: passkey.counter,
            transports: [...passkey.transports],
          },
          requireUserVerification: true,
        });
      } catch (error) {
        // the library's words for a counter that did not move forward
        refuse(error instanceof Error && /counter/i.test(error.message) ? 'counter' : 'verification', undefined, error);
      }
      if (!verification.verified) refuse('verification');
      // the same answer replayed on another instance at the same moment: only one of the two records its challenge
      if (!(await requireSignInChallenges().useOnce(taken))) refuse('challenge');
      // a clone used on another instance at the same moment: only one of the two moves the counter
      if (!(await passkeys.recordUse(passkey.id, verification.authenticationInfo.newCounter, now()))) refuse('counter');
      return { user, passkey: { ...passkey, counter: verification.authenticationInfo.newCounter, lastUsedAt: now() } };
    },

    /**
     * Removes one of the user's passkeys. Refused when it is the account's
     * last way in: its last passkey while password sign-in is off.
     */
    async remove(userId: string, passkeyId: string): Promise<boolean> {
      const user = await requireUser(userId);
      const own = await passkeys.listByUser(userId);
      if (!own.some((passkey) => passkey.id === passkeyId)) return false;
      if (user.passwordless && own.length <= 1) {
        throw new ConflictError(
          forClient(
            'This is the last passkey of an account that signs in with passkeys only: turn password sign-in back on first, or add another passkey.',
          ),
        );
      }
      return passkeys.remove(userId, passkeyId);
    },

    /** Turns passkey-only sign-in on (refused without a passkey: the account would have no way in) or off. */
    async setPasswordless(userId: string, passwordless: boolean): Promise<void> {
      await requireUser(userId);
      if (passwordless && (await passkeys.countByUser(userId)) === 0) {
        throw new ConflictError(
          forClient('Register a passkey first: without one, an account that refuses its password has no way to sign in.'),
        );
      }
      await users.setPasswordless(userId, passwordless, now());
    },
  };
}
