/**
 * The admin's Syndication page and the Write area's syndication checkboxes
 * (issue 33): a target added with the guided form only when the service
 * accepts the token, removed; a post written with its box ticked goes to the
 * Mastodon API double; a failed copy shows why and is retried from the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { CookieJar } from '../helpers/app.js';
import { addUser, buildAdminApp, csrfOf, getAdmin, postAdmin, submitAdmin, unescapeHtml, type AdminTestApp } from '../helpers/admin.js';
import { startMastodonDouble, type MastodonDouble } from '../helpers/mastodon-double.js';

describe('the Syndication page and the Write area', () => {
  let t: AdminTestApp;
  let alice: { user: HostUser; jar: CookieJar };
  let double: MastodonDouble;

  beforeAll(async () => {
    double = await startMastodonDouble({ mediaPolls: 0 });
    t = await buildAdminApp({ INDIEWEB_MICROPUB_HANDLER: 'database', INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true' });
    alice = await addUser(t, 'alice');
  });
  afterAll(async () => {
    await t?.close();
    await double.close();
  });

  it('shows the guided form; a wrong token is refused with the reason (400), the page keeps what was typed', async () => {
    const page = await getAdmin(t, alice.jar, '/syndication/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('No targets yet');
    expect(page.body).toContain('App passwords');
    const refused = await submitAdmin(t, alice.jar, '/syndication/', '/syndication/add', {
      service: 'mastodon',
      url: double.origin,
      secret: 'wrong',
    });
    expect(refused.statusCode).toBe(400);
    expect(unescapeHtml(refused.body)).toContain('refused the access token');
    expect(refused.body).toContain(`value="${double.origin}"`);
    expect(refused.body).not.toContain('value="wrong"');
    const nonsense = await submitAdmin(t, alice.jar, '/syndication/', '/syndication/add', { service: 'myspace', url: '::', secret: 'x' });
    expect(nonsense.statusCode).toBe(400);
    expect(await t.app.indieweb.syndication.listTargets(alice.user.id)).toEqual([]);
  });

  it('adds a target, which the Write area then offers as a checkbox; a post with it ticked goes there', async () => {
    const added = await submitAdmin(t, alice.jar, '/syndication/', '/syndication/add', {
      service: 'mastodon',
      url: double.origin,
      secret: double.token,
    });
    expect(added.statusCode).toBe(303);
    const [target] = await t.app.indieweb.syndication.listTargets(alice.user.id);
    const page = await getAdmin(t, alice.jar, '/syndication/');
    expect(page.body).toContain(target!.uid);
    const write = await getAdmin(t, alice.jar, '/write/');
    expect(write.body).toContain(`name="mp-syndicate-to" value="${target!.uid}"`);
    const posted = await postAdmin(t, alice.jar, '/write/', {
      _csrf: csrfOf(write),
      type: 'note',
      content: 'Written in the admin',
      'mp-syndicate-to': target!.uid,
    });
    expect(posted.statusCode).toBe(303);
    // the post's copy, and the new target's first backfeed poll (issue 34)
    expect(await t.app.indieweb.jobs.drain()).toBe(2);
    const copy = double.ownStatuses().find((status) => status.text === 'Written in the admin');
    expect(copy).toBeDefined();
    const status = await getAdmin(t, alice.jar, '/syndication/');
    expect(status.body).toContain(`href="${copy!.url}"`);
    // the target's last backfeed poll and what it found
    expect(status.body).toMatch(/data-label="Last poll">[^<]*<time[^>]*>[^<]*<\/time>: nothing new</);
  });

  it('a failed copy shows why; Retry queues it again and it goes', async () => {
    const [target] = await t.app.indieweb.syndication.listTargets(alice.user.id);
    double.fail({ status: 422, body: { error: 'Validation failed: nope' }, path: '/api/v1/statuses' });
    const write = await getAdmin(t, alice.jar, '/write/');
    await postAdmin(t, alice.jar, '/write/', {
      _csrf: csrfOf(write),
      type: 'note',
      content: 'Fails first',
      'mp-syndicate-to': target!.uid,
    });
    await t.app.indieweb.jobs.drain();
    const page = await getAdmin(t, alice.jar, '/syndication/');
    expect(page.body).toContain('failed: mastodon: POST /api/v1/statuses answered 422: Validation failed: nope');
    const id = /name="id" value="([^"]+)"/.exec(page.body)![1]!;
    const retried = await postAdmin(t, alice.jar, '/syndication/retry', { _csrf: csrfOf(page), id });
    expect(retried.statusCode).toBe(303);
    expect(await t.app.indieweb.jobs.drain()).toBe(1);
    expect(double.ownStatuses().some((status) => status.text === 'Fails first')).toBe(true);
    const unknown = await postAdmin(t, alice.jar, '/syndication/retry', { _csrf: csrfOf(page), id: 'nope' });
    expect(unknown.statusCode).toBe(404);
  });

  it('removes a target; removing an unknown one is 404; a form without CSRF is refused', async () => {
    const [target] = await t.app.indieweb.syndication.listTargets(alice.user.id);
    const page = await getAdmin(t, alice.jar, '/syndication/');
    expect((await postAdmin(t, alice.jar, '/syndication/remove', { uid: target!.uid })).statusCode).toBe(403);
    expect((await postAdmin(t, alice.jar, '/syndication/remove', { _csrf: csrfOf(page), uid: 'nope' })).statusCode).toBe(404);
    expect((await postAdmin(t, alice.jar, '/syndication/remove', { _csrf: csrfOf(page), uid: target!.uid })).statusCode).toBe(303);
    expect(await t.app.indieweb.syndication.listTargets(alice.user.id)).toEqual([]);
  });

  it('refuses a target on this machine unless INDIEWEB_ALLOW_PRIVATE_NETWORKS allows it', async () => {
    const strict = await buildAdminApp({ INDIEWEB_MICROPUB_HANDLER: 'database' });
    try {
      const bob = await addUser(strict, 'bob');
      const refused = await submitAdmin(strict, bob.jar, '/syndication/', '/syndication/add', {
        service: 'mastodon',
        url: double.origin,
        secret: double.token,
      });
      expect(refused.statusCode).toBe(400);
      expect(unescapeHtml(refused.body)).toContain('not a public address');
      expect(
        double.requests.some((request) => request.path === '/api/v1/accounts/verify_credentials' && request.idempotencyKey === 'x'),
      ).toBe(false);
    } finally {
      await strict.close();
    }
  });
});
