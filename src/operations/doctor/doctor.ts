/**
 * `indiestack doctor` and the admin's "Check my setup": every check in a
 * fixed order, each one line (check.ts). Remote checks first, as a client
 * meets the server; then what it stands on.
 * @module
 */
import type { Config } from '../../config/config.js';
import type { MediaStorage } from '../../contracts/media-storage.js';
import type { Outbound } from '../../outbound/fetch.js';
import type { DatabaseHandle } from '../../storage/connect.js';
import type { JobsRepository } from '../../storage/repositories/jobs.js';
import { fail, pass, warn, type CheckResult } from './check.js';
import { checkDatabase, checkJobQueue, checkMediaStorage, checkSearchIndex, checkSecret } from './local-checks.js';
import { checkAuthorizationHeader, checkBaseUrl, checkClock, checkProfile, type LinksHint, type RemoteContext } from './remote-checks.js';

export interface DoctorDeps {
  readonly config: Pick<Config, 'baseUrl' | 'database' | 'secret'>;
  readonly outbound: Outbound;
  readonly database: DatabaseHandle;
  readonly jobs: Pick<JobsRepository, 'queueStats'>;
  /** Null: the media check is skipped (storage could not be opened is reported by the caller). */
  readonly storage: MediaStorage | null;
  readonly now: () => Date;
  /** Syndication targets with whether their credentials still work (the syndication service's check); absent: not checked. */
  readonly syndicationTargets?: () => Promise<readonly SyndicationTargetCheck[]>;
}

/** One syndication target as the doctor reports it. */
export interface SyndicationTargetCheck {
  readonly uid: string;
  readonly service: string;
  readonly name: string;
  readonly ok: boolean;
  /** The service could not be reached (a warning), rather than refusing the credentials (a failure). */
  readonly transient: boolean;
  readonly reason: string | null;
}

/** A line per syndication target: its credentials work, were refused (FAIL), or could not be checked now (WARN). */
export function syndicationChecks(targets: readonly SyndicationTargetCheck[]): CheckResult[] {
  return targets.map((target) => {
    const name = `syndication ${target.uid}`;
    const who = `${target.name} (${target.service})`;
    if (target.ok) return pass(name, `${who}: the credentials work`);
    const reason = target.reason ?? 'the check failed';
    if (target.transient)
      return warn(name, `${who} could not be checked now: ${reason}`, 'try again later; posts for it wait and are retried');
    return fail(
      name,
      `${who}: the credentials stopped working: ${reason}`,
      `make a new token (Mastodon) or app password (Bluesky), then indiestack syndication remove --user NAME ${target.uid} and syndication add again (or use the admin's Syndication page)`,
    );
  });
}

export interface DoctorSubject {
  /** The profile URLs to check, in the account's spelling. */
  readonly profileUrls: readonly string[];
  /** Where the account's link tags can be had, for fixes (`linksCommandHint(…)` on the command line). */
  readonly links: LinksHint;
}

/** A fetch the outbound guard refused because the address is on this machine or a private network. */
const REFUSED_PRIVATE = /not a public address/;

/**
 * On a local trial (a base URL on this machine or a private network) every
 * remote check fails the same way: the doctor fetches public addresses only.
 * Those failures say so, and how to check such a server anyway.
 */
function explainLocalTrial(check: CheckResult): CheckResult {
  if (check.status !== 'FAIL' || !REFUSED_PRIVATE.test(check.message)) return check;
  return {
    ...check,
    fix: 'this is a local trial (the address is on this machine or a private network), which the doctor does not fetch by default: check it with INDIEWEB_ALLOW_PRIVATE_NETWORKS=true npx indiestack doctor …; on the internet give --base-url (INDIEWEB_BASE_URL) the public https address',
  };
}

export async function runDoctor(deps: DoctorDeps, subjects: readonly DoctorSubject[]): Promise<CheckResult[]> {
  const context: RemoteContext = { outbound: deps.outbound, baseUrl: deps.config.baseUrl, now: deps.now, dates: [] };
  const checks: CheckResult[] = [];
  checks.push(await checkBaseUrl(context));
  checks.push(await checkAuthorizationHeader(context));
  for (const subject of subjects) {
    for (const me of subject.profileUrls) checks.push(...(await checkProfile(context, me, subject.links)));
  }
  checks.push(checkClock(context));
  checks.push(checkSecret(deps.config));
  const database = await checkDatabase(deps.database);
  checks.push(database);
  const searchIndex = database.status === 'PASS' ? await checkSearchIndex(deps.database) : null;
  if (searchIndex !== null) checks.push(searchIndex);
  if (deps.storage !== null) checks.push(await checkMediaStorage(deps.storage, deps.outbound));
  checks.push(await checkJobQueue(deps.jobs, deps.now()));
  if (deps.syndicationTargets !== undefined) checks.push(...syndicationChecks(await deps.syndicationTargets()));
  return checks.map(explainLocalTrial);
}
