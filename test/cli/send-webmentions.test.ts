import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Command } from 'commander';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerSendWebmentionsCommand } from '../../src/cli/send-webmentions.js';
import type { CliIo } from '../../src/cli/io.js';
import { isIndieWebError } from '../../src/core/errors.js';
import { BIN, cleanEnv, runCli } from '../helpers/cli.js';
import { startFixtureServer, type FixtureServer } from '../fixtures/webmention-send/server.js';

const SOURCE = 'https://me.example/notes/1';

class Collector extends Writable {
  text = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns?: number,
  ) {
    super();
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

interface InProcessResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The command registered on a bare program, with main.ts's error contract: one line on stderr and exit 1. */
async function runInProcess(
  args: string[],
  options: { env?: Record<string, string>; terminal?: boolean; columns?: number } = {},
): Promise<InProcessResult> {
  const stdout = new Collector(false);
  const stderr = new Collector(options.terminal ?? false, options.columns);
  const io: CliIo = {
    stdin: process.stdin,
    stdout,
    stderr,
    env: { INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true', ...options.env },
    cwd: os.tmpdir(),
  };
  let code = 0;
  const run = async (work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      if (!isIndieWebError(error)) throw error;
      stderr.write(`indiestack: ${error.message}\n`);
      code = 1;
    }
  };
  const program = new Command('indiestack')
    .exitOverride()
    .configureOutput({ writeOut: (t) => stdout.write(t), writeErr: (t) => stderr.write(t) });
  registerSendWebmentionsCommand(program, io, run);
  await program.parseAsync(['send-webmentions', ...args], { from: 'user' });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('send-webmentions command', () => {
  let server: FixtureServer;
  const advertising = (endpoint: string) => server.url(`/advertise?endpoint=${encodeURIComponent(endpoint)}`);

  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.received.length = 0;
  });

  it('exit 0 with one summary line per target and a count line when none failed', async () => {
    const sent = server.url('/pages/html-link-absolute');
    const none = server.url('/pages/no-endpoint');
    const result = await runInProcess([SOURCE, '--target', sent, none]);
    expect(result).toEqual({
      code: 0,
      stdout: [
        `sent ${sent} → ${server.url('/webmention/201?case=html-link-absolute')} (201)`,
        `no-endpoint ${none}`,
        '2 targets: 1 sent, 1 no-endpoint, 0 failed',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(server.received.map((r) => Object.fromEntries(new URLSearchParams(r.body)))).toEqual([{ source: SOURCE, target: sent }]);
  });

  it('exit 1 with a failed line, the count line and one stderr line when a target failed', async () => {
    const sent = server.url('/pages/html-a-relative');
    const failing = advertising('/webmention/500');
    const result = await runInProcess([SOURCE, '--target', failing, '--target', sent]);
    expect(result).toEqual({
      code: 1,
      stdout: [
        `failed ${failing}: endpoint answered 500`,
        `sent ${sent} → ${server.url('/webmention/202?case=html-a-relative')} (202)`,
        '2 targets: 1 sent, 0 no-endpoint, 1 failed',
        '',
      ].join('\n'),
      stderr: 'indiestack: 1 of 2 webmentions failed\n',
    });
  });

  it('exit 0 and sends to the links of the source when no target is given', async () => {
    const source = server.url('/pages/source-no-h-entry');
    const result = await runInProcess([source]);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      `sent ${server.url('/pages/html-a-relative')} → ${server.url('/webmention/202?case=html-a-relative')} (202)`,
      `sent ${server.url('/pages/link-header-absolute')} → ${server.url('/webmention/201?case=link-header-absolute')} (201)`,
      `no-endpoint ${server.url('/pages/no-endpoint')}`,
      '3 targets: 2 sent, 1 no-endpoint, 0 failed',
      '',
    ]);
  });

  it('exit 1 when the source cannot be read', async () => {
    const source = server.url('/pages/missing-page');
    const result = await runInProcess([source]);
    expect(result).toEqual({
      code: 1,
      stdout: `failed ${source}: cannot read the source: source answered 404\n1 target: 0 sent, 0 no-endpoint, 1 failed\n`,
      stderr: 'indiestack: 1 of 1 webmentions failed\n',
    });
  });

  it('exit 1 for a loopback target when private networks are not allowed', async () => {
    const target = server.url('/pages/html-a-relative');
    const result = await runInProcess([SOURCE, '--target', target], { env: { INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'false' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      `failed ${target}: discovery failed: refusing to connect to 127.0.0.1: not a public address\n1 target: 0 sent, 0 no-endpoint, 1 failed\n`,
    );
  });

  it('shows progress on stderr when stderr is a terminal, and clears it before the summary', async () => {
    const target = server.url('/pages/html-a-relative');
    const result = await runInProcess([SOURCE, '--target', target], { terminal: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`[1/1] ${target}`);
    expect(result.stderr).toContain(`[1/1] sent ${target}`);
    expect(result.stderr.endsWith('\r\u001b[K')).toBe(true);
    expect(result.stdout).not.toContain('\u001b');
  });

  it('cuts progress lines to the terminal width so that they can be cleared', async () => {
    const target = server.url('/pages/html-a-relative');
    const result = await runInProcess([SOURCE, '--target', target], { terminal: true, columns: 30 });
    const lines = result.stderr.split('\r\u001b[K').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.length).toBeLessThan(30);
  });
});

const built = spawnSync(process.execPath, [BIN, '--help'], { env: cleanEnv(), encoding: 'utf8' });
const registered = built.status === 0 && built.stdout.includes('send-webmentions');

// needs the command registered in src/cli/main.ts and a build (npm test builds first)
describe.skipIf(!registered)('indiestack send-webmentions (built bin)', () => {
  let server: FixtureServer;
  let cwd: string;
  const env = { INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' };

  beforeAll(async () => {
    server = await startFixtureServer();
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-send-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('exit 0 with the summary on stdout and nothing on stderr when every target was sent', async () => {
    const first = server.url('/pages/link-header-relative');
    const second = server.url('/pages/html-link-before-a');
    const result = await runCli(['send-webmentions', SOURCE, '--target', first, second], { cwd, env });
    expect(result).toEqual({
      code: 0,
      stdout: [
        `sent ${first} → ${server.url('/webmention/202?case=link-header-relative')} (202)`,
        `sent ${second} → ${server.url('/webmention/202?case=html-link-before-a')} (202)`,
        '2 targets: 2 sent, 0 no-endpoint, 0 failed',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('exit 1 when one target failed', async () => {
    const sent = server.url('/pages/html-a-absolute');
    const failing = server.url('/redirect/6?to=/pages/html-a-absolute');
    const result = await runCli(['send-webmentions', SOURCE, '--target', sent, failing], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        `sent ${sent} → ${server.url('/webmention/201?case=html-a-absolute')} (201)`,
        `failed ${failing}: discovery failed: more than 5 redirects`,
        '2 targets: 1 sent, 0 no-endpoint, 1 failed',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe('indiestack: 1 of 2 webmentions failed\n');
  });

  it('exit 0 when a target has no endpoint', async () => {
    const none = server.url('/pages/no-endpoint');
    const result = await runCli(['send-webmentions', SOURCE, '--target', none], { cwd, env });
    expect(result).toMatchObject({ code: 0, stdout: `no-endpoint ${none}\n1 target: 0 sent, 1 no-endpoint, 0 failed\n`, stderr: '' });
  });

  it("answers to the spec's name send_webmentions too", async () => {
    const sent = server.url('/pages/html-link-absolute');
    const result = await runCli(['send_webmentions', SOURCE, '--target', sent], { cwd, env });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      `sent ${sent} → ${server.url('/webmention/201?case=html-link-absolute')} (201)\n1 target: 1 sent, 0 no-endpoint, 0 failed\n`,
    );
  });

  it('exit 1 refusing a loopback target without INDIEWEB_ALLOW_PRIVATE_NETWORKS', async () => {
    const target = server.url('/pages/html-a-absolute');
    const result = await runCli(['send-webmentions', SOURCE, '--target', target], { cwd });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`failed ${target}: discovery failed: refusing to connect to 127.0.0.1: not a public address\n`);
  });

  it('exit 2 for an invalid INDIEWEB_ALLOW_PRIVATE_NETWORKS', async () => {
    const result = await runCli(['send-webmentions', SOURCE, '--target', server.url('/pages/no-endpoint')], {
      cwd,
      env: { INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'maybe' },
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^indiestack: INDIEWEB_ALLOW_PRIVATE_NETWORKS: /);
  });
});
