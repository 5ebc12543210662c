import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('indiestack serve --help', () => {
  it('names the handler setting: where posts are kept is the first thing a new user needs to know', async () => {
    const result = await runCli(['serve', '--help'], { cwd: os.tmpdir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('INDIEWEB_MICROPUB_HANDLER=database');
    expect(result.stdout).toMatch(/kept in memory/);
  });
});
