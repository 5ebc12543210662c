/**
 * The doctor inside the running server, for the admin's "Check my setup":
 * the same checks as `indiestack doctor` (doctor.ts) for one signed-in
 * account, one run at a time per account. A run makes outbound requests (the
 * public base URL, the account's homepages, maybe the media URL), so a second
 * click while one runs is turned away rather than queued.
 * @module
 */
import type { Config } from '../../config/config.js';
import type { Clock } from '../../core/clock.js';
import type { Meter } from '../../core/meter.js';
import type { HostUser } from '../../contracts/accounts.js';
import type { MediaStorage } from '../../contracts/media-storage.js';
import { outboundFor } from '../../outbound/fetch.js';
import type { DatabaseHandle } from '../../storage/connect.js';
import type { JobsRepository } from '../../storage/repositories/jobs.js';
import type { CheckResult } from './check.js';
import { runDoctor, type SyndicationTargetCheck } from './doctor.js';
import type { LinksHint } from './remote-checks.js';

export interface DoctorServiceDeps {
  readonly config: Pick<Config, 'baseUrl' | 'database' | 'secret' | 'allowPrivateNetworks' | 'outboundTimeout' | 'parseTimeout'>;
  readonly database: DatabaseHandle;
  readonly jobs: Pick<JobsRepository, 'queueStats'>;
  readonly storage: MediaStorage;
  readonly clock: Clock;
  /** Counts the doctor's fetches with the server's other outbound fetches. */
  readonly meter: Pick<Meter, 'outboundFetch'>;
  /** The account's syndication targets with whether their credentials still work; absent: not checked. */
  readonly syndicationTargets?: (userId: string) => Promise<readonly SyndicationTargetCheck[]>;
}

/** The outcome of asking for a run: the checks, or `busy` when one for the same account is still running. */
export type DoctorRun = { readonly status: 'done'; readonly checks: CheckResult[] } | { readonly status: 'busy' };

export interface DoctorService {
  /** Runs every check for the account's profile URLs; `busy` while another run of the same account is under way. */
  checkAccount(user: HostUser, links: LinksHint): Promise<DoctorRun>;
  /** Closes the outbound client. */
  close(): Promise<void>;
}

export function createDoctorService(deps: DoctorServiceDeps): DoctorService {
  const { config } = deps;
  const outbound = outboundFor(config, {
    onOutcome: deps.meter.outboundFetch,
  });
  // in this process only: each instance of a scaled-out deployment guards its own runs
  const running = new Set<string>();

  return {
    async checkAccount(user, links) {
      if (running.has(user.id)) return { status: 'busy' };
      running.add(user.id);
      try {
        const checks = await runDoctor(
          {
            config,
            outbound,
            database: deps.database,
            jobs: deps.jobs,
            storage: deps.storage,
            now: () => deps.clock.now(),
            ...(deps.syndicationTargets === undefined ? {} : { syndicationTargets: () => deps.syndicationTargets!(user.id) }),
          },
          [{ profileUrls: user.me, links }],
        );
        return { status: 'done', checks };
      } finally {
        running.delete(user.id);
      }
    },
    close: () => outbound.close(),
  };
}
