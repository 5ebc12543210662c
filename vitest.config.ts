import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // every Micropub endpoint test again, against the built-in database handler on PostgreSQL (issue 18)
        test: {
          name: 'micropub-database',
          include: ['test/micropub/**/*.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          env: { INDIESTACK_TEST_HANDLER: 'database', INDIESTACK_TEST_DATABASE: 'postgres' },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
