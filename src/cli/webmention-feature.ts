/**
 * The webmention feature as the server builds it (`createWebmention`, the
 * same services, the same hooks), without its worker or routes: the CLI's
 * moderation commands run through it, so an approval queues the webhook the
 * admin's would, a reprocess runs the service's own processing and stores
 * only its own failure reasons, and spam goes through `markSpam` (issue 29:
 * the CLI had drifted from the server). Jobs it queues (webhook deliveries)
 * are run by a server's worker, as the admin's are.
 * @module
 */
import { pino } from 'pino';
import { createStandaloneAccounts } from '../accounts/standalone-accounts.js';
import { resolveSecret } from '../config/secret.js';
import { systemClock } from '../core/clock.js';
import { createSigner } from '../core/signing.js';
import { openMediaStorage } from '../media/feature.js';
import { createMediaHooks } from '../media/hooks.js';
import { loadContent } from '../content/content.js';
import { createStores } from '../storage/stores.js';
import { createJobWorker } from '../jobs/worker.js';
import { createWebmention, type WebmentionFeature } from '../webmention/feature.js';
import { withServices, type CliServices } from './context.js';
import type { CliIo } from './io.js';

export function withWebmentionFeature<T>(io: CliIo, work: (feature: WebmentionFeature, services: CliServices) => Promise<T>): Promise<T> {
  return withServices(io, async (services) => {
    const { config, database } = services;
    // messages for the operator only when something fails; stdout stays the command's own
    const log = pino({ level: 'error' }, pino.destination(2));
    const stores = createStores(database);
    const signer = createSigner(resolveSecret(config.secret, config.dataDir));
    const storage = await openMediaStorage(config);
    const content = await loadContent({
      config,
      handler: undefined,
      urlPolicy: undefined,
      mediaHooks: createMediaHooks({ media: stores.media, storage }),
      database: { entries: stores.entries, clock: systemClock },
      log,
    });
    const feature = createWebmention({
      config,
      clock: systemClock,
      stores,
      signer,
      accounts: createStandaloneAccounts({ users: stores.users, signer, clock: systemClock, baseUrl: config.baseUrl }),
      handler: content.handler,
      onWebmentionReceived: undefined,
      // never started here: jobs it queues are run by a server's worker
      jobs: createJobWorker({ jobs: stores.jobs, clock: systemClock, leaseSeconds: config.jobLeaseSeconds, log }),
      log,
    });
    try {
      return await work(feature, services);
    } finally {
      await feature.close();
    }
  });
}
