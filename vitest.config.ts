import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The whole suite, in projects by cost (docs/development.md#test-tiers):
 * unit (src/, no I/O), integration (inject and loopback HTTP on SQLite and a
 * real PostgreSQL), micropub-database (every Micropub endpoint test again on
 * the database handler over PostgreSQL), and process (spawned servers and
 * commands, Chromium, the fuzzer). `npm run test:quick` runs a SQLite-only
 * cut of it without PostgreSQL (vitest.quick.config.ts).
 */

/** Files that spawn processes or drive a browser: their own project, so a developer can leave them out. */
export const PROCESS_TESTS = [
  'test/cli/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/fuzz/**/*.test.ts',
  'test/scale-out/**/*.test.ts',
  'test/operations/backup.test.ts',
  'test/operations/doctor.test.ts',
  'test/media/storage-faults.test.ts',
  'test/media/photo-pages.test.ts', // Chromium
  'test/http/database-faults.test.ts', // a served process whose PostgreSQL stops and starts
  'test/micropub-database/restart.test.ts', // served processes stopped and started again
  'test/package.test.ts',
  'test/node-versions.test.ts',
  'test/readme.test.ts',
];

/** Files that start a real Bluesky PDS (test/helpers/pds.ts, seconds to import): their own project, without PostgreSQL. */
export const PDS_TESTS = ['test/syndication/bluesky/**/*.test.ts'];

/**
 * Files that start a whole Bluesky network (test/helpers/bsky-network.ts: `@atproto/dev-env`'s PLC, PDS and
 * AppView on the embedded PostgreSQL and Redis, about 8 s): their own project.
 */
export const APPVIEW_TESTS = ['test/syndication/appview/**/*.test.ts'];

/** How long a test and a hook of the integration tiers may take (the quick tier uses them too). */
export const INTEGRATION_TIMEOUTS = { testTimeout: 30_000, hookTimeout: 60_000 };

const integration = {
  globalSetup: ['test/helpers/global-setup.ts'],
  ...INTEGRATION_TIMEOUTS,
  // A worker runs its files one after another in one module graph instead of importing the application again
  // for each file (2+ s a file, a third of the suite's CPU). Safe because no test file mocks a module, and the
  // few that change process.env or the clock put them back in afterAll/finally.
  isolate: false,
};

export default defineConfig({
  test: {
    // vitest's default leaves one core idle (availableParallelism - 1: one worker on a 2-core machine); most
    // of these files wait part of the time on sockets, databases, child processes and Chromium, so one worker
    // more than cores keeps both cores busy (2 cores: 365 s with 2 workers, 319 s with 3, 370 s with 4)
    maxWorkers: os.availableParallelism() + 1,
    // transformed modules kept on disk between runs (node_modules/.experimental-vitest-cache, keyed by each
    // file's content): a second run skips most of the TypeScript transforms
    experimental: { fsModuleCache: true },
    projects: [
      // one module graph per worker here too (no unit test mocks a module or changes a global): a new process per
      // file cost ~0.4 s of CPU each, mostly Node and vitest starting and resolving modules again
      { test: { name: 'unit', include: ['src/**/*.test.ts'], isolate: false } },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...PROCESS_TESTS, ...PDS_TESTS, ...APPVIEW_TESTS],
          ...integration,
        },
      },
      {
        // every Micropub endpoint test again, against the built-in database handler on PostgreSQL (issue 18)
        test: {
          name: 'micropub-database',
          include: ['test/micropub/**/*.test.ts'],
          env: { INDIESTACK_TEST_HANDLER: 'database', INDIESTACK_TEST_DATABASE: 'postgres' },
          ...integration,
        },
      },
      { test: { name: 'process', include: PROCESS_TESTS, ...integration } },
      { test: { name: 'pds', include: PDS_TESTS, ...INTEGRATION_TIMEOUTS } },
      { test: { name: 'appview', include: APPVIEW_TESTS, ...INTEGRATION_TIMEOUTS } },
    ],
  },
});
