/**
 * Issue 15 deliver 6: SIGTERM while an upload is still arriving and a
 * webmention is being verified. The server stops accepting at once, lets
 * the upload finish (201, the file stored whole), lets the verification
 * finish (the mention is verified, its job done), closes the database and
 * exits 0: nothing lost, nothing half-written.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLine, runCli } from '../helpers/cli.js';
import { DIALECTS, freshLocation } from '../helpers/databases.js';
import { filePart, multipart, randomPng } from '../helpers/media.js';
import { killServe, startServe, type ServeProcess } from '../helpers/serve.js';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

for (const dialect of DIALECTS) {
  describe(`SIGTERM during an upload and a webmention verification on ${dialect}`, () => {
    let cwd: string;
    let serve: ServeProcess | undefined;
    let source: http.Server;
    let sourceUrl: string;
    let releaseSource: () => void = () => {};
    let sourceAsked: Promise<void>;
    let fresh: Awaited<ReturnType<typeof freshLocation>>;
    let env: Record<string, string>;

    beforeAll(async () => {
      cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-shutdown-'));
      fresh = await freshLocation(dialect);
      env = {
        INDIEWEB_DATABASE_URL: fresh.url,
        INDIEWEB_SECRET: 's'.repeat(40),
        INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true',
        INDIEWEB_SHUTDOWN_TIMEOUT: '20',
      };
      let asked: () => void = () => {};
      sourceAsked = new Promise((resolve) => (asked = resolve));
      const released = new Promise<void>((resolve) => (releaseSource = resolve));
      // a source page that answers only when the test says so: the verification job is running until then
      source = http.createServer((request, response) => {
        asked();
        void released.then(() => {
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          response.end(
            `<!doctype html><div class="h-entry"><p class="e-content">Nice post: <a href="${serve!.base}/indieweb/">here</a></p></div>`,
          );
        });
      });
      source.listen(0, '127.0.0.1');
      await once(source, 'listening');
      sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}/reply`;
      const added = await runCli(['user', 'add', 'alice', '--me', 'https://alice.example/', '--password-stdin'], {
        cwd,
        env,
        input: 'a long password\n',
      });
      expect(added.code).toBe(0);
      serve = await startServe(cwd, env);
    }, 60_000);

    afterAll(async () => {
      releaseSource();
      await killServe(serve);
      source.closeAllConnections();
      source.close();
      await fresh.drop();
      rmSync(cwd, { recursive: true, force: true });
    });

    it('finishes both, refuses new connections meanwhile, and exits 0 with everything stored', async () => {
      const base = serve!.base;
      const issued = await runCli(['token', 'issue', '--user', 'alice', '--client-id', 'https://app.example/', '--scope', 'media'], {
        cwd,
        env,
      });
      expect(issued.code).toBe(0);
      const token = lastLine(issued.stdout);

      const mention = await fetch(`${base}/indieweb/webmention/`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ source: sourceUrl, target: `${base}/indieweb/` }).toString(),
      });
      expect(mention.status).toBe(201);
      await sourceAsked;

      // an upload whose first half has arrived when the signal comes
      const png = randomPng(512 * 1024);
      const { body, contentType } = multipart([filePart(png)]);
      const half = Math.floor(body.length / 2);
      const upload = http.request(`${base}/indieweb/media/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-length': String(body.length) },
      });
      const answered = new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
        upload.on('response', (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, location: response.headers.location });
        });
        upload.on('error', reject);
      });
      upload.write(body.subarray(0, half));
      await new Promise((resolve) => setTimeout(resolve, 300));

      const exited = once(serve!.child, 'exit');
      serve!.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 500));

      // stopped accepting: a new connection is refused while the two are still in flight
      await expect(fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
      expect(serve!.child.exitCode).toBeNull();

      upload.end(body.subarray(half));
      const result = await answered;
      expect(result.status).toBe(201);
      releaseSource();

      const [code] = (await exited) as [number | null];
      expect(code, serve!.log.join('')).toBe(0);

      // the file is stored whole, under the name the Location gave, with no partial file beside it
      const stored = filesUnder(path.join(cwd, 'data', 'media'));
      expect(stored).toHaveLength(1);
      expect(result.location?.endsWith(path.basename(stored[0]!))).toBe(true);
      expect(readFileSync(stored[0]!).equals(png)).toBe(true);

      // the verification finished before the database closed: verified, none left pending
      const list = await runCli(['webmention', 'list'], { cwd, env });
      expect(list.stdout).toMatch(new RegExp(`verified\\s+mention\\s+${sourceUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      const drained = await runCli(['webmention', 'list', '--status', 'pending'], { cwd, env });
      expect(drained.stdout).not.toContain(sourceUrl);
    }, 60_000);
  });
}
