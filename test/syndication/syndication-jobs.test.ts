/**
 * Syndication end to end in one process: a Mastodon target added against the
 * API double, entries created (form and JSON), updated, deleted and undeleted
 * through the Micropub endpoint (database handler), the job queue drained by
 * hand, and what the entry, the double and the status say after each step.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyndicationError } from '../../src/syndication/client.js';
import { buildTestApp } from '../helpers/app.js';
import { startMastodonDouble, type MastodonDouble } from '../helpers/mastodon-double.js';
import { multipart } from '../helpers/media.js';
import { phonePhoto } from '../helpers/photos.js';

async function appWithAlice() {
  const t = await buildTestApp({ env: { INDIEWEB_MICROPUB_HANDLER: 'database', INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' } });
  const alice = await t.app.indieweb.users!.addUser({ name: 'alice', me: ['https://alice.example/'], password: 'alice password 1' });
  const { token } = await t.app.indieweb.tokens.issue({
    userId: alice.id,
    clientId: 'https://app.example/',
    me: 'https://alice.example/',
    scope: 'create update delete undelete',
    expiresIn: 3600,
  });
  const auth = { authorization: `Bearer ${token}` };
  return { t, alice, auth };
}

describe('syndication jobs (Mastodon double)', () => {
  let double: MastodonDouble;
  let app: Awaited<ReturnType<typeof appWithAlice>>;
  let uid: string;
  const service = () => app.t.app.indieweb.syndication;
  const drain = () => app.t.app.indieweb.jobs.drain();
  const source = async (url: string) =>
    JSON.parse(
      (await app.t.app.inject({ method: 'GET', url: `/indieweb/micropub/?q=source&url=${encodeURIComponent(url)}`, headers: app.auth }))
        .body,
    ) as { properties: Record<string, unknown[]> };
  const createForm = async (fields: Record<string, string | string[]>) => {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) body.append(name, one);
    const response = await app.t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { ...app.auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: body.toString(),
    });
    expect(response.statusCode).toBe(201);
    return response.headers.location as string;
  };
  const action = async (body: Record<string, unknown>) =>
    app.t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { ...app.auth, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });

  beforeAll(async () => {
    double = await startMastodonDouble({ mediaPolls: 0 });
    app = await appWithAlice();
    uid = (await service().addTarget({ userId: app.alice.id, service: 'mastodon', url: double.origin, secret: double.token })).uid;
    // a new target's first backfeed poll (issue 34) runs now; the next one is 300 s away on the manual clock
    expect(await drain()).toBe(1);
  });
  afterAll(async () => {
    await app.t.close();
    await double.close();
  });

  it('adds a target only when the service accepts the token, and keeps the token sealed', async () => {
    const error = await service()
      .addTarget({ userId: app.alice.id, service: 'mastodon', url: double.origin, secret: 'wrong-token' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyndicationError);
    const targets = await service().listTargets(app.alice.id);
    expect(targets.map((target) => [target.uid, target.service, target.name])).toEqual([
      [uid, 'mastodon', `@alice@${new URL(double.origin).host}`],
    ]);
    const rows = await app.t.database.db.selectFrom('indieweb_syndication_target').select('credentials').execute();
    expect(JSON.stringify(rows)).not.toContain(double.token);
  });

  it('q=syndicate-to and q=config list the target as { uid, name, service }', async () => {
    const response = await app.t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=syndicate-to', headers: app.auth });
    const targets = (JSON.parse(response.body) as { 'syndicate-to': unknown[] })['syndicate-to'];
    expect(targets).toEqual([{ uid, name: expect.stringContaining('@alice@'), service: { name: 'Mastodon', url: double.origin } }]);
    const config = JSON.parse((await app.t.app.inject({ method: 'GET', url: '/indieweb/micropub/?q=config', headers: app.auth })).body) as {
      'syndicate-to': unknown[];
    };
    expect(config['syndicate-to']).toEqual(targets);
  });

  it('a form create with mp-syndicate-to makes one copy; its URL becomes the entry’s syndication; status says sent', async () => {
    const url = await createForm({ h: 'entry', content: 'Hello fediverse', category: 'indieweb', 'mp-syndicate-to': uid });
    expect(await drain()).toBe(1);
    const copies = double.ownStatuses().filter((status) => status.text.startsWith('Hello fediverse'));
    expect(copies).toHaveLength(1);
    expect(copies[0]!.text).toBe('Hello fediverse\n\n#indieweb');
    expect((await source(url)).properties.syndication).toEqual([copies[0]!.url]);
    const lines = await service().status([url]);
    expect(lines.map((line) => [line.uid, line.state, line.detail])).toEqual([[uid, 'sent', copies[0]!.url]]);
    // the entry page shows it as u-syndication
    const page = await app.t.app.inject({ method: 'GET', url: new URL(url).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(
      new RegExp(`class="u-syndication"[^>]*href="${copies[0]!.url}"|href="${copies[0]!.url}"[^>]*class="u-syndication"`),
    );
    // running the job again (a crash after the copy was stored) never makes a second copy
    await app.t.app.indieweb.jobs.drain();
    expect(double.ownStatuses().filter((status) => status.text.startsWith('Hello fediverse'))).toHaveLength(1);
  });

  it('a JSON create with mp-syndicate-to works too; unknown uids are ignored; no mp-syndicate-to, no copy', async () => {
    const response = await action({ type: ['h-entry'], properties: { content: ['JSON post'], 'mp-syndicate-to': [uid, 'nope'] } });
    expect(response.statusCode).toBe(201);
    await createForm({ h: 'entry', content: 'Not syndicated' });
    expect(await drain()).toBe(1);
    expect(double.ownStatuses().map((status) => status.text)).toContain('JSON post');
    expect(double.ownStatuses().map((status) => status.text)).not.toContain('Not syndicated');
  });

  it('a photo post (multipart) goes with its photo, read from our storage, and its alt text', async () => {
    const body = multipart([
      { name: 'h', value: 'entry' },
      { name: 'content', value: 'A photo' },
      { name: 'mp-photo-alt', value: 'Red on the left, blue on the right' },
      { name: 'mp-syndicate-to', value: uid },
      { name: 'photo', filename: 'p.jpg', type: 'image/jpeg', content: await phonePhoto(400, 300) },
    ]);
    const response = await app.t.app.inject({
      method: 'POST',
      url: '/indieweb/micropub/',
      headers: { ...app.auth, 'content-type': body.contentType },
      payload: body.body,
    });
    expect(response.statusCode).toBe(201);
    expect(await drain()).toBe(1);
    const copy = double.ownStatuses().find((status) => status.text === 'A photo')!;
    expect(copy.media_ids).toHaveLength(1);
    expect(double.media.get(copy.media_ids[0]!)).toMatchObject({ description: 'Red on the left, blue on the right', type: 'image/jpeg' });
  });

  it('an update edits the copy; a delete removes it; an undelete does not repost', async () => {
    const url = await createForm({ h: 'entry', content: 'Version one', 'mp-syndicate-to': uid });
    await drain();
    const copy = double.ownStatuses().find((status) => status.text === 'Version one')!;
    expect((await action({ action: 'update', url, replace: { content: ['Version two'] } })).statusCode).toBeLessThan(300);
    expect(await drain()).toBe(1);
    expect(double.statuses.get(copy.id)).toMatchObject({ text: 'Version two', edits: 1 });
    expect((await action({ action: 'delete', url })).statusCode).toBe(204);
    expect(await drain()).toBe(1);
    expect(double.statuses.get(copy.id)!.deleted).toBe(true);
    expect(await service().status([url])).toEqual([]);
    expect((await action({ action: 'undelete', url })).statusCode).toBeLessThan(300);
    expect(await drain()).toBe(0);
    expect(double.ownStatuses().filter((status) => status.text.startsWith('Version'))).toHaveLength(0);
  });

  it('a draft waits; the update that publishes it sends it', async () => {
    const url = await createForm({ h: 'entry', content: 'Draft first', 'post-status': 'draft', 'mp-syndicate-to': uid });
    expect(await drain()).toBe(1);
    expect(double.ownStatuses().some((status) => status.text === 'Draft first')).toBe(false);
    expect((await service().status([url]))[0]).toMatchObject({
      state: 'queued',
      detail: expect.stringContaining('waiting until the post is published'),
    });
    expect((await action({ action: 'update', url, replace: { 'post-status': ['published'] } })).statusCode).toBeLessThan(300);
    expect(await drain()).toBe(1);
    expect(double.ownStatuses().filter((status) => status.text === 'Draft first')).toHaveLength(1);
    expect((await service().status([url]))[0]).toMatchObject({ state: 'sent' });
  });

  it('a 503 with Retry-After: 1 is retried a second later, not after the backoff', async () => {
    double.fail({ status: 503, headers: { 'retry-after': '1' }, path: '/api/v1/statuses' });
    const url = await createForm({ h: 'entry', content: 'Busy instance', 'mp-syndicate-to': uid });
    await drain();
    const [line] = await service().status([url]);
    expect(line).toMatchObject({ state: 'queued', detail: expect.stringContaining('(will retry)') });
    const job = await app.t.database.db
      .selectFrom('indieweb_job')
      .selectAll()
      .where('kind', '=', 'syndication.sync')
      .executeTakeFirstOrThrow();
    expect(Date.parse(job.run_at) - app.t.clock.now().getTime()).toBe(1000);
    app.t.clock.advance(1);
    expect(await drain()).toBe(1);
    expect((await service().status([url]))[0]).toMatchObject({ state: 'sent' });
  });

  it('a refusal fails at once with its reason; a retry queues it again and it goes', async () => {
    double.fail({ status: 422, body: { error: 'Validation failed: spam' }, path: '/api/v1/statuses' });
    const url = await createForm({ h: 'entry', content: 'Refused first', 'mp-syndicate-to': uid });
    await drain();
    const [line] = await service().status([url]);
    expect(line).toMatchObject({ state: 'failed', detail: expect.stringContaining('Validation failed: spam') });
    expect(await service().retry(app.alice.id, line!.row.id)).toBe(true);
    expect((await service().status([url]))[0]).toMatchObject({ state: 'queued' });
    expect(await drain()).toBe(1);
    expect((await service().status([url]))[0]).toMatchObject({ state: 'sent' });
    expect(await service().retry('someone-else', line!.row.id)).toBe(false);
  });

  it('the credentials check names a target whose token stopped working', async () => {
    expect((await service().checkTargets()).map((check) => check.ok)).toEqual([true]);
    const other = await startMastodonDouble({ token: 'other' });
    const second = await service().addTarget({ userId: app.alice.id, service: 'mastodon', url: other.origin, secret: 'other' });
    await other.close();
    const checks = await service().checkTargets(app.alice.id);
    expect(checks.find((check) => check.target.uid === second.uid)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('cannot be reached'),
    });
    expect(await service().removeTarget(app.alice.id, second.uid)).toBe(true);
  });
});
