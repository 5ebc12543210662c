import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { APPVIEW_TESTS, INTEGRATION_TIMEOUTS, PDS_TESTS, PROCESS_TESTS } from './vitest.config.js';

/**
 * `npm run test:quick`: the developer's loop — every unit test and every
 * feature's integration tests on SQLite, without PostgreSQL, spawned
 * processes or a browser (docs/development.md#test-tiers). `npm test` runs
 * everything.
 */
export default defineConfig({
  test: {
    maxWorkers: os.availableParallelism() + 1,
    env: { INDIESTACK_TEST_DIALECTS: 'sqlite' },
    experimental: { fsModuleCache: true },
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      {
        test: {
          name: 'quick',
          include: ['test/**/*.test.ts'],
          exclude: [
            ...PROCESS_TESTS,
            ...PDS_TESTS,
            ...APPVIEW_TESTS,
            // written for PostgreSQL alone
            'test/storage/change-feed.test.ts',
            'test/storage/connection-loss.test.ts',
            'test/indieauth/token-cache-postgres.test.ts',
            // slow by design (hundreds of scrypt checks); test/accounts/login.test.ts covers signing in
            'test/accounts/sign-in-throttle.test.ts',
            'test/accounts/hash-bound.test.ts',
            // slow by design: each keeps a core busy for a whole parse or fetch budget (5 s) on purpose; the
            // parse pool's own budget is tested in the unit tier (src/html/pool.test.ts)
            'test/webmention/parse-budget.test.ts',
            'test/webmention/send-parse-budget.test.ts',
            'test/webmention/silent-source.test.ts',
            'test/indieauth/client-page-budget.test.ts',
          ],
          ...INTEGRATION_TIMEOUTS,
          // as in the whole suite: a worker imports the application once for all its files, not once per file
          isolate: false,
        },
      },
    ],
  },
});
