import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../helpers/global-setup.js';
import { BIN, cleanEnv, lastLine, runCli, startCli } from '../helpers/cli.js';
import { CookieJar, hiddenField } from '../helpers/app.js';

async function waitForHealth(base: string, child: ChildProcess): Promise<Response> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      return await fetch(`${base}/healthz`);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error('server did not start');
}

describe('indiestack serve with no configuration', () => {
  let cwd: string;
  let child: ChildProcess;
  let base: string;
  let logs = '';

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-serve-'));
    const add = await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], {
      cwd,
      input: 'serve test password\n',
    });
    expect(add.code).toBe(0);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = startCli(['serve', '--port', String(port)], { cwd });
    child.stdout?.on('data', (chunk: Buffer) => (logs += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (logs += chunk.toString('utf8')));
  });

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'close');
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  it('keeps its SQLite file and a private generated secret under ./data', async () => {
    await waitForHealth(base, child);
    expect(existsSync(path.join(cwd, 'data', 'indiestack.sqlite'))).toBe(true);
    expect(statSync(path.join(cwd, 'data', 'secret')).mode & 0o777).toBe(0o600);
  });

  it.skipIf(process.platform !== 'linux' || typeof process.execve !== 'function')(
    'runs in the process it was started as, with V8’s young generation bounded (issue 31)',
    async () => {
      await waitForHealth(base, child);
      const commandLine = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      expect(commandLine).toContain('--max-semi-space-size=8');
      expect(commandLine).toContain('serve');
      expect(readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
    },
  );

  it('GET /healthz answers 200 {"status":"ok"}', async () => {
    const response = await waitForHealth(base, child);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('a user added from the CLI signs in through the page and signs out', async () => {
    const jar = new CookieJar();
    const start = await fetch(`${base}/indieweb/`, { redirect: 'manual' });
    expect(start.status).toBe(303);
    const loginUrl = start.headers.get('location')!;
    expect(loginUrl).toBe(`${base}/indieweb/login/?return_to=%2Findieweb%2F`);
    const page = await fetch(loginUrl);
    jar.store(page.headers.getSetCookie());
    const html = await page.text();
    const signedIn = await fetch(`${base}/indieweb/login/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: hiddenField(html, '_csrf'),
        return_to: hiddenField(html, 'return_to'),
        username: 'alice',
        password: 'serve test password',
      }),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(`${base}/indieweb/`);
    jar.store(signedIn.headers.getSetCookie());
    const home = await fetch(`${base}/indieweb/`, { headers: { cookie: jar.header() } });
    const homeHtml = await home.text();
    expect(homeHtml).toContain('Signed in as alice');
    const signedOut = await fetch(`${base}/indieweb/logout/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: hiddenField(homeHtml, '_csrf') }),
    });
    expect(signedOut.status).toBe(303);
    jar.store(signedOut.headers.getSetCookie());
    expect((await fetch(`${base}/indieweb/`, { redirect: 'manual', headers: { cookie: jar.header() } })).status).toBe(303);
  });

  it('token issue works while the server holds the same SQLite database open', async () => {
    const issued = await runCli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'create'], { cwd });
    expect(issued.code).toBe(0);
    expect(lastLine(issued.stdout)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('never logs passwords or tokens', () => {
    expect(logs).not.toContain('serve test password');
    expect(logs).toContain('indiestack is serving');
  });

  it('stops cleanly on SIGTERM', async () => {
    child.kill('SIGTERM');
    const [code] = await once(child, 'close');
    expect(code).toBe(0);
  });
});

describe('indiestack serve started by npm (`npx indiestack serve &`, then `kill $!`)', () => {
  it('stops by itself when the npm process that started it is gone, instead of keeping the port', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-npx-'));
    const port = await freePort();
    // npm exec runs the bin under `sh -c`; killing npm ends the shell and leaves the server to init
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve --port ${port} & echo $! ; wait`], {
      cwd,
      env: cleanEnv({ npm_command: 'exec', INDIEWEB_LOG_LEVEL: 'error' }),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [pidLine] = (await once(shell.stdout!, 'data')) as [Buffer];
      const serverPid = Number(pidLine.toString().trim());
      const up = async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      for (let i = 0; i < 100 && !(await up().catch(() => false)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await up()).toBe(true);
      shell.kill('SIGKILL');
      let alive = true;
      for (let i = 0; i < 100 && alive; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        try {
          process.kill(serverPid, 0);
        } catch {
          alive = false;
        }
      }
      expect(alive).toBe(false);
      await expect(up()).rejects.toThrow();
    } finally {
      shell.kill('SIGKILL');
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 30_000);
});
