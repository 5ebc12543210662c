/**
 * Table interfaces of the database, apart from the row types code uses.
 * Timestamps are ISO-8601 UTC text, booleans 0/1 integers (portable across
 * SQLite and PostgreSQL).
 * @module
 */
import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

export interface UserTable {
  id: string;
  name: string;
  password_hash: string;
  active: number;
  session_epoch: number;
  created_at: string;
  updated_at: string;
  /** 1: password sign-in is refused, only passkeys sign in (0010). */
  passwordless: ColumnType<number, number | undefined, number>;
}

export interface UserProfileUrlTable {
  url_key: string;
  user_id: string;
  url: string;
  position: number;
}

export interface AuthCodeTable {
  code_hash: string;
  user_id: string;
  client_id: string;
  redirect_uri: string;
  me: string;
  scope: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  created_at: string;
  expires_at: string;
  consumed_at: string | null;
  /** The grant issued from the code once redeemed at the token endpoint (0006). */
  grant_id: string | null;
}

export interface TokenTable {
  id: string;
  token_hash: string;
  user_id: string;
  client_id: string;
  me: string;
  scope: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  grant_id: string | null;
}

export interface RefreshTokenTable {
  id: string;
  token_hash: string;
  grant_id: string;
  user_id: string;
  client_id: string;
  me: string;
  scope: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

export interface MediaTable {
  id: string;
  user_id: string;
  storage_key: string;
  url: string;
  name: string;
  media_type: string;
  size: ColumnType<number, number, number> | string;
  created_at: string;
}

export interface WebmentionTable {
  id: string;
  source: string;
  target: string;
  target_key: string;
  status: string;
  verified_at: string | null;
  type: string | null;
  author_name: string | null;
  author_url: string | null;
  author_photo: string | null;
  content_text: string | null;
  content_html: string | null;
  published: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  /** The account the mention belongs to; null when nobody identifiable (0007). */
  owner_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The target's host without `www.`; null only for mentions received before 0007 whose owner is not assigned yet. */
  target_host: ColumnType<string | null, string | null | undefined, string | null>;
  /** The integer id of the webmention.io-compatible API (0009). */
  wm_id: ColumnType<number | string | null, number | null | undefined, number | null>;
  /** Moderation: null or 'approved' (public once verified), 'held', 'rejected' (0009). */
  approval: ColumnType<string | null, string | null | undefined, string | null>;
  /** The RSVP value (yes, no, maybe, interested) of an rsvp mention (0009). */
  rsvp: ColumnType<string | null, string | null | undefined, string | null>;
  /** Import provenance, e.g. `webmention.io:900` (0009). */
  origin: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface CounterTable {
  name: string;
  value: ColumnType<number | string, number, number>;
}

export interface WebmentionAccountTable {
  user_id: string;
  read_token_hash: string | null;
  read_key_id: string | null;
  read_token_created_at: string | null;
  webhook_url: string | null;
  webhook_key_id: string | null;
  /** 1: the webhook body carries its secret, as webmention.io's does (migration 0014). */
  webhook_webmention_io: ColumnType<number, number | undefined, number>;
  updated_at: string;
}

export interface WebmentionRuleTable {
  id: string;
  user_id: string | null;
  action: string;
  kind: string;
  value: string;
  created_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  user_id: string;
  webmention_id: string | null;
  event: string;
  url: string;
  body: string;
  status: string;
  attempts: ColumnType<number | string, number | undefined, number>;
  http_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebmentionOutgoingTable {
  id: string;
  user_id: string;
  source: string;
  target: string;
  status: string;
  endpoint: string | null;
  http_status: number | null;
  error: string | null;
  attempts: ColumnType<number | string, number | undefined, number>;
  awaiting_deploy: number;
  /** 1: the source links to the target; 0: sent because the link went away (0012). */
  linked: ColumnType<number, number | undefined, number>;
  created_at: string;
  updated_at: string;
}

export interface SyndicationTargetTable {
  id: string;
  user_id: string;
  service: string;
  name: string;
  url: string;
  handle: string | null;
  /** Sealed with a key derived from the server secret (core/sealing.ts); never plain text. */
  credentials: string;
  created_at: string;
}

export interface SyndicationTable {
  id: string;
  user_id: string;
  entry_url: string;
  target_id: string;
  action: string;
  state: string;
  copy_id: string | null;
  copy_url: string | null;
  error: string | null;
  attempts: ColumnType<number | string, number | undefined, number>;
  created_at: string;
  updated_at: string;
}

export interface SyndicationPollTable {
  target_id: string;
  cursor: string | null;
  polled_at: string | null;
  found: string | null;
  error: string | null;
  updated_at: string;
}

export interface BackfeedTable {
  id: string;
  target_id: string;
  webmention_id: string;
  kind: string;
  copy_id: string;
  silo_id: string;
  source: string;
  created_at: string;
  checked_at: string;
}

export interface JobTable {
  id: string;
  kind: string;
  ref: string;
  run_at: string;
  attempts: number;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
}

export interface ProfileTable {
  user_id: string;
  name: string | null;
  photo_url: string | null;
  url: string | null;
  /** JSON: property name → array of values. */
  h_card: string;
  updated_at: string;
}

export interface EntryTable {
  id: string;
  user_id: string;
  url: string;
  path: string;
  /** JSON: the microformats type list. */
  type: string;
  /** JSON: property name → array of values. */
  properties: string;
  /** `published` or `draft`, and `public`, `unlisted` or `private`: read from the properties on every write (`core/visibility.ts`). */
  post_status: string;
  visibility: string;
  published: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  version: ColumnType<number, number | undefined, number>;
  /** The user's month folder and the slug the entry asked for; `slug_number` is its `-n` (1 for none). */
  slug_series: string;
  slug_number: number;
  /** The q=source list item as lower-cased stable JSON, what a `filter` matches (migration 0015; `searchTextOf`); null only for unreadable JSON. */
  search_text: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Per account: its live entries and a version that moves with every change of its entries (migration 0016, kept by triggers). */
export interface EntryCountTable {
  user_id: string;
  live: ColumnType<number, number | undefined, number>;
  /** Live entries that are published and public: the author's pages list them (migration 0019). */
  listed: ColumnType<number, number | undefined, number>;
  /** bigint on PostgreSQL (read as a string). */
  version: ColumnType<number | string, number | undefined, number>;
}

export interface PasskeyTable {
  id: string;
  user_id: string;
  /** base64url, as the authenticator names the credential. */
  credential_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  /** bigint: PostgreSQL returns it as a string. */
  counter: ColumnType<number | string, number, number>;
  /** JSON array of transport hints. */
  transports: string;
  name: string;
  device_type: string;
  backed_up: number;
  created_at: string;
  last_used_at: string | null;
}

export interface WebauthnChallengeTable {
  id: string;
  challenge: string;
  purpose: string;
  user_id: string | null;
  created_at: string;
  expires_at: string;
}

export interface Database {
  indieweb_user: UserTable;
  indieweb_user_profile_url: UserProfileUrlTable;
  indieweb_auth_code: AuthCodeTable;
  indieweb_token: TokenTable;
  indieweb_media: MediaTable;
  indieweb_webmention: WebmentionTable;
  indieweb_job: JobTable;
  indieweb_profile: ProfileTable;
  indieweb_refresh_token: RefreshTokenTable;
  indieweb_entry: EntryTable;
  indieweb_entry_count: EntryCountTable;
  indieweb_counter: CounterTable;
  indieweb_webmention_account: WebmentionAccountTable;
  indieweb_webmention_rule: WebmentionRuleTable;
  indieweb_webhook_delivery: WebhookDeliveryTable;
  indieweb_webmention_outgoing: WebmentionOutgoingTable;
  indieweb_passkey: PasskeyTable;
  indieweb_webauthn_challenge: WebauthnChallengeTable;
  indieweb_syndication_target: SyndicationTargetTable;
  indieweb_syndication: SyndicationTable;
  indieweb_syndication_poll: SyndicationPollTable;
  indieweb_backfeed: BackfeedTable;
}

export type UserRow = Selectable<UserTable>;
export type NewUserRow = Insertable<UserTable>;
export type UserUpdate = Updateable<UserTable>;
export type ProfileUrlRow = Selectable<UserProfileUrlTable>;
export type AuthCodeRow = Selectable<AuthCodeTable>;
export type NewAuthCodeRow = Insertable<AuthCodeTable>;
export type TokenRow = Selectable<TokenTable>;
export type NewTokenRow = Insertable<TokenTable>;
export type MediaRow = Selectable<MediaTable>;
export type WebmentionRow = Selectable<WebmentionTable>;
export type JobRow = Selectable<JobTable>;
export type RefreshTokenRow = Selectable<RefreshTokenTable>;
export type EntryTableRow = Selectable<EntryTable>;
export type WebmentionAccountRow = Selectable<WebmentionAccountTable>;
export type WebmentionRuleRow = Selectable<WebmentionRuleTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;
export type WebmentionOutgoingRow = Selectable<WebmentionOutgoingTable>;
export type PasskeyRow = Selectable<PasskeyTable>;
export type WebauthnChallengeRow = Selectable<WebauthnChallengeTable>;
export type SyndicationTargetRow = Selectable<SyndicationTargetTable>;
export type SyndicationRow = Selectable<SyndicationTable>;
