import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresUserCannotReach } from './helpers/postgres.js';

// issue 30 item 13: `npm test` in a clone under a private directory (root's home is 0700)
describe('the PostgreSQL tests in a clone the postgres user cannot reach', () => {
  const top = mkdtempSync(path.join(os.tmpdir(), 'indiestack-reach-'));
  chmodSync(top, 0o755);
  afterAll(() => rmSync(top, { recursive: true, force: true }));

  it('say in one line which directory is closed and what to do, instead of initdb EACCES', () => {
    const home = path.join(top, 'home');
    mkdirSync(path.join(home, 'indiestack', 'node_modules'), { recursive: true });
    chmodSync(home, 0o700);
    const message = postgresUserCannotReach(path.join(home, 'indiestack', 'node_modules'), true);
    expect(message).toContain(`cannot enter ${home} (mode 700)`);
    expect(message).toContain(`chmod o+x ${home}`);
    expect(message).toContain('npm run test:quick needs no PostgreSQL');
    expect(message).not.toContain('\n');
  });

  it('say nothing when every directory above can be entered, or when not running as root', () => {
    const open = path.join(top, 'open', 'indiestack', 'node_modules');
    mkdirSync(open, { recursive: true });
    chmodSync(path.join(top, 'open'), 0o755);
    expect(postgresUserCannotReach(open, true)).toBeNull();
    expect(postgresUserCannotReach(path.join(top, 'home'), false)).toBeNull();
  });
});
