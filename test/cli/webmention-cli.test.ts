/**
 * `indiestack webmention list|reprocess|spam`, run as the built bin against a
 * SQLite file that an in-process app shares (the app receives and verifies;
 * the CLI moderates; the app sees the result). Each start of the bin costs a
 * second or two, so independent invocations run at once in `beforeAll`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebmentionRecord } from '../../src/storage/repositories/webmentions.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import {
  accepted,
  drain,
  linkingPage,
  PRIVATE_OK,
  recordOf,
  SITE,
  startSourceServer,
  statusOf,
  unrelatedPage,
  type SourceServer,
} from '../helpers/webmention.js';

const TARGET = `${SITE}/post`;
const AUTHORED = linkingPage(TARGET, {
  author: '<a class="p-author h-card" href="/lee">Lee</a>',
  content: `Kept text <a href="${TARGET}">link</a>`,
});
// each start of the bin costs a second or two: a sample of the status values
const STATUSES = ['verified'] as const;
const BAD_STATUSES = ['bogus'];

/** The table row of an id in `webmention list` output, split into columns. */
function row(stdout: string, id: string): string[] | undefined {
  return stdout
    .split('\n')
    .find((line) => line.startsWith(`${id} `))
    ?.split(/\s{2,}/);
}

const listedIds = (result: CliResult) =>
  result.stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => line.split(' ')[0]);

/** What reprocessing and reclassification keep. */
const kept = (record: WebmentionRecord) => ({ ...record, status: null, verifiedAt: null, error: null, updatedAt: null });

describe('indiestack webmention (moderation CLI) on a database shared with a running app', () => {
  let t: TestApp;
  let source: SourceServer;
  let cwd: string;
  const ids = { verified: '', unlinked: '', failed: '', spam: '', victim: '', pending: '' };
  const before: Record<string, WebmentionRecord> = {};
  const cli = (args: string[]) => runCli(['webmention', ...args], { cwd, env: { INDIEWEB_DATABASE_URL: t.database.url, ...PRIVATE_OK } });
  const mention = async (name: string, page: string | Parameters<SourceServer['set']>[1]) => {
    source.set(`/${name}`, page);
    t.clock.advance(1);
    const id = await accepted(t, source.url(`/${name}`), TARGET);
    await drain(t);
    return id;
  };

  beforeAll(async () => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'indiestack-wm-cli-'));
    t = await buildTestApp({ env: PRIVATE_OK });
    source = await startSourceServer();
    ids.verified = await mention('verified', AUTHORED);
    ids.unlinked = await mention('unlinked', AUTHORED);
    ids.failed = await mention('failed', unrelatedPage());
    ids.spam = await mention('spam', AUTHORED);
    await t.app.indieweb.webmention.markSpam(ids.spam);
    ids.victim = await mention('victim', AUTHORED);
    // accepted, and its verification job taken away, so it stays pending
    source.set('/pending', AUTHORED);
    t.clock.advance(1);
    ids.pending = await accepted(t, source.url('/pending'), TARGET);
    await t.database.db.deleteFrom('indieweb_job').where('ref', '=', ids.pending).execute();
    for (const [name, id] of Object.entries(ids)) before[name] = await recordOf(t, id);
    expect(Object.values(before).map((record) => record.status)).toEqual(['verified', 'verified', 'failed', 'spam', 'verified', 'pending']);
  });
  afterAll(async () => {
    await t.close();
    await source.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  describe('list', () => {
    let all: CliResult;
    const byStatus = new Map<string, CliResult>();
    const refused = new Map<string, CliResult>();
    beforeAll(async () => {
      const results = await Promise.all([
        cli(['list']),
        ...[...STATUSES, ...BAD_STATUSES].map((status) => cli(['list', '--status', status])),
      ]);
      all = results[0]!;
      STATUSES.forEach((status, index) => byStatus.set(status, results[1 + index]!));
      BAD_STATUSES.forEach((status, index) => refused.set(status, results[1 + STATUSES.length + index]!));
    });

    it('prints every webmention, newest first, as a table with id, status, type, source and target', () => {
      expect(all).toMatchObject({ code: 0, stderr: '' });
      expect(all.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+TYPE\s+SOURCE\s+TARGET\s+UPDATED$/);
      expect(listedIds(all)).toEqual([ids.pending, ids.victim, ids.spam, ids.failed, ids.unlinked, ids.verified]);
      expect(row(all.stdout, ids.verified)?.slice(1, 5)).toEqual(['verified', 'mention', source.url('/verified'), TARGET]);
      expect(row(all.stdout, ids.failed)?.slice(1, 2)).toEqual(['failed']);
      expect(row(all.stdout, ids.spam)?.slice(1, 2)).toEqual(['spam']);
      expect(row(all.stdout, ids.pending)?.slice(1, 3)).toEqual(['pending', '-']);
    });

    it.each(STATUSES)('--status %s prints only those', (status) => {
      const result = byStatus.get(status)!;
      expect(result).toMatchObject({ code: 0, stderr: '' });
      const expected = { verified: [ids.victim, ids.unlinked, ids.verified] }[status];
      expect(listedIds(result)).toEqual(expected);
    });

    it('--reasons adds a REASON column after the others: why a mention failed, - for the rest', async () => {
      const result = await cli(['list', '--reasons']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+TYPE\s+SOURCE\s+TARGET\s+UPDATED\s+REASON$/);
      expect(listedIds(result)).toEqual(listedIds(all));
      expect(row(result.stdout, ids.failed)?.slice(1, 2)).toEqual(['failed']);
      expect(row(result.stdout, ids.failed)?.at(-1)).toBe('source does not link to the target');
      expect(row(result.stdout, ids.verified)?.at(-1)).toBe('-');
    });

    it('--status failed shows the REASON column without being asked', async () => {
      const result = await cli(['list', '--status', 'failed']);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.split('\n')[0]).toMatch(/\sREASON$/);
      expect(listedIds(result)).toEqual([ids.failed]);
      expect(row(result.stdout, ids.failed)?.at(-1)).toBe('source does not link to the target');
    });

    it.each(BAD_STATUSES)('--status %j is refused with one line on stderr and a non-zero exit', (status) => {
      const result = refused.get(status)!;
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/pending, verified, failed, spam/);
    });
  });

  describe('reprocess ID and spam ID', () => {
    let run: Record<'recovered' | 'gone' | 'unlinked' | 'unknown' | 'spam' | 'spamUrl' | 'spamUnknown', CliResult>;
    beforeAll(async () => {
      source.set('/failed', AUTHORED);
      source.set('/verified', { status: 410, body: 'gone' });
      source.set('/unlinked', linkingPage('https://elsewhere.example/'));
      const [recovered, gone, unlinked, unknown, spam, spamUrl, spamUnknown] = await Promise.all([
        cli(['reprocess', ids.failed]),
        cli(['reprocess', `${SITE}/indieweb/webmention/${ids.verified}`]),
        cli(['reprocess', `${ids.unlinked}/`]),
        cli(['reprocess', 'no-such-mention']),
        cli(['spam', ids.victim]),
        cli(['spam', `${SITE}/indieweb/webmention/${ids.pending}`]),
        cli(['spam', 'no-such-mention']),
      ]);
      run = {
        recovered: recovered!,
        gone: gone!,
        unlinked: unlinked!,
        unknown: unknown!,
        spam: spam!,
        spamUrl: spamUrl!,
        spamUnknown: spamUnknown!,
      };
    });

    it('reprocess ID: failed → verified with a verified_at when the source now links to the target', async () => {
      expect(run.recovered).toMatchObject({ code: 0, stderr: '', stdout: `${ids.failed}  verified\n` });
      const status = await statusOf(t, ids.failed);
      expect(status).toMatchObject({ status: 'verified', author: { name: 'Lee' }, content: 'Kept text link' });
      expect(status.verified_at).not.toBeNull();
    });

    it('reprocess STATUS-URL: verified → failed on 410, verified_at cleared, URLs and author/content kept, exit 1', async () => {
      expect(run.gone.code).toBe(1);
      expect(run.gone.stdout).toMatch(new RegExp(`^${ids.verified}  failed: .*410`));
      const after = await recordOf(t, ids.verified);
      expect(after).toMatchObject({ status: 'failed', verifiedAt: null });
      expect(kept(after)).toEqual(kept(before.verified!));
    });

    it('reprocess ID/: verified → failed when the link was removed, author/content kept, exit 1', async () => {
      expect(run.unlinked.code).toBe(1);
      expect(run.unlinked.stdout).toMatch(new RegExp(`^${ids.unlinked}  failed: `));
      const after = await recordOf(t, ids.unlinked);
      expect(after).toMatchObject({ status: 'failed', verifiedAt: null });
      expect(kept(after)).toEqual(kept(before.unlinked!));
    });

    it('reprocess refuses an unknown ID with one line on stderr and exit 1', () => {
      expect(run.unknown).toMatchObject({ code: 1, stdout: '', stderr: 'indiestack: no webmention no-such-mention\n' });
    });

    it('spam ID: verified → spam, verified_at cleared, author/content kept, gone from the read API', async () => {
      expect(run.spam).toMatchObject({ code: 0, stderr: '', stdout: `marked ${ids.victim} as spam\n` });
      const after = await recordOf(t, ids.victim);
      expect(after).toMatchObject({ status: 'spam', verifiedAt: null });
      expect(kept(after)).toEqual(kept(before.victim!));
      const feed = await t.app.inject({ method: 'GET', url: `/indieweb/webmention/?target=${encodeURIComponent(TARGET)}` });
      expect(feed.json<{ children: { url: string }[] }>().children.map((child) => child.url)).not.toContain(source.url('/victim'));
    });

    it('spam STATUS-URL: pending → spam', async () => {
      expect(run.spamUrl).toMatchObject({ code: 0, stderr: '', stdout: `marked ${ids.pending} as spam\n` });
      expect(await statusOf(t, ids.pending)).toMatchObject({ status: 'spam', verified_at: null });
    });

    it('spam refuses an unknown ID with one line on stderr and exit 1', () => {
      expect(run.spamUnknown).toMatchObject({ code: 1, stdout: '', stderr: 'indiestack: no webmention no-such-mention\n' });
    });
  });

  describe('reprocess --all-failed', () => {
    it('reprocesses every failed webmention and nothing else', async () => {
      expect((await statusOf(t, ids.verified)).status).toBe('failed');
      expect((await statusOf(t, ids.unlinked)).status).toBe('failed');
      source.set('/verified', AUTHORED);
      const untouched = ['/failed', '/spam', '/victim', '/pending'];
      const hitsBefore = untouched.map((p) => source.hits(p));

      const result = await cli(['reprocess', '--all-failed']);
      expect(result.stderr).toBe('');
      expect(result.stdout.trimEnd().split('\n').sort()).toEqual(
        [`${ids.verified}  verified`, `${ids.unlinked}  failed: source does not link to the target`].sort(),
      );
      expect((await statusOf(t, ids.verified)).status).toBe('verified');
      expect((await statusOf(t, ids.unlinked)).status).toBe('failed');
      // verified and spam ones were not fetched
      expect(untouched.map((p) => source.hits(p))).toEqual(hitsBefore);
    });
  });
});
