import type { Migration } from 'kysely/migration';
import * as m0001 from './0001-accounts-and-tokens.js';
import * as m0002 from './0002-media.js';
import * as m0003 from './0003-webmentions.js';
import * as m0004 from './0004-profiles.js';
import * as m0005 from './0005-grants.js';
import * as m0006 from './0006-code-grants.js';
import * as m0007 from './0007-webmention-owner.js';
import * as m0008 from './0008-entries.js';
import * as m0009 from './0009-webmention-api.js';
import * as m0010 from './0010-passkeys.js';
import * as m0011 from './0011-auth-change-notify.js';
import * as m0012 from './0012-webmention-sending.js';
import * as m0013 from './0013-entry-visibility.js';
import * as m0014 from './0014-webhook-webmention-io.js';
import * as m0015 from './0015-entry-search-text.js';
import * as m0016 from './0016-syndication.js';
import * as m0017 from './0017-backfeed.js';
import * as m0018 from './0018-entry-counts.js';
import * as m0019 from './0019-entry-listed-count.js';
import * as m0020 from './0020-entry-search-trigram.js';
import * as m0021 from './0021-entry-search-sqlite.js';
import * as m0022 from './0022-entry-search-pending.js';

/** Every migration, in order; a static record so bundling never depends on directory scanning. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001-accounts-and-tokens': m0001,
  '0002-media': m0002,
  '0003-webmentions': m0003,
  '0004-profiles': m0004,
  '0005-grants': m0005,
  '0006-code-grants': m0006,
  '0007-webmention-owner': m0007,
  '0008-entries': m0008,
  '0009-webmention-api': m0009,
  '0010-passkeys': m0010,
  '0011-auth-change-notify': m0011,
  '0012-webmention-sending': m0012,
  '0013-entry-visibility': m0013,
  '0014-webhook-webmention-io': m0014,
  '0015-entry-search-text': m0015,
  '0016-syndication': m0016,
  '0017-backfeed': m0017,
  '0018-entry-counts': m0018,
  '0019-entry-listed-count': m0019,
  '0020-entry-search-trigram': m0020,
  '0021-entry-search-sqlite': m0021,
  '0022-entry-search-pending': m0022,
});
