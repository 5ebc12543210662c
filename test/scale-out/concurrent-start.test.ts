/**
 * Several instances starting together on one fresh database (a rollout, a
 * restart of every replica): each runs the migrations at start, and exactly
 * one of them applies each migration while the others wait for it
 * (docs/deployment.md, "Migrations").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/storage/connect.js';
import { MIGRATION_TABLE } from '../../src/storage/migrate.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { runCli } from '../helpers/cli.js';
import { DIALECTS, freshLocation } from '../helpers/databases.js';
import { killServe, startServe, type ServeProcess } from '../helpers/serve.js';

const SECRET = 'concurrent-start-secret-that-is-long-enough';
const TOGETHER = 3;

describe.each(DIALECTS)('instances starting together on one fresh database (%s)', (dialect) => {
  let root: string;
  let fresh: Awaited<ReturnType<typeof freshLocation>>;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'indiestack-concurrent-start-'));
    fresh = await freshLocation(dialect);
  });
  afterAll(async () => {
    await fresh?.drop();
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  /** The migrations recorded in the database, each with how often. */
  async function recorded(): Promise<string[]> {
    const handle = createDatabase(fresh.location);
    try {
      const rows = await handle.db
        .selectFrom(MIGRATION_TABLE as never)
        .select('name' as never)
        .execute();
      return (rows as { name: string }[]).map((row) => row.name).sort();
    } finally {
      await handle.close();
    }
  }

  it(`${TOGETHER} × \`indiestack migrate\` at once: every one succeeds, every migration is applied once`, async () => {
    const env = { INDIEWEB_DATABASE_URL: fresh.url, INDIEWEB_SECRET: SECRET };
    const runs = await Promise.all(
      Array.from({ length: TOGETHER }, (_, i) =>
        runCli(['migrate'], { cwd: root, env: { ...env, INDIEWEB_DATA_DIR: path.join(root, `cli-${i}`) } }),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(await recorded()).toEqual(Object.keys(MIGRATIONS).sort());
  });

  it(`${TOGETHER} × \`indiestack serve\` started together on a fresh database all come up`, async () => {
    const again = await freshLocation(dialect);
    const instances: ServeProcess[] = [];
    try {
      const env = { INDIEWEB_DATABASE_URL: again.url, INDIEWEB_SECRET: SECRET };
      const started = await Promise.allSettled(
        Array.from({ length: TOGETHER }, (_, i) =>
          startServe(root, { ...env, INDIEWEB_DATA_DIR: path.join(root, `serve-${dialect}-${i}`) }),
        ),
      );
      for (const result of started) if (result.status === 'fulfilled') instances.push(result.value);
      expect(started.map((result) => (result.status === 'fulfilled' ? 'up' : String(result.reason)))).toEqual(Array(TOGETHER).fill('up'));
      for (const instance of instances) expect((await fetch(`${instance.base}/healthz`)).status).toBe(200);
    } finally {
      for (const instance of instances) await killServe(instance);
      await again.drop();
    }
  });
});
