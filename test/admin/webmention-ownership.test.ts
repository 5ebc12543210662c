/**
 * Issue 23 #4: a user sees and moderates only their own webmentions. Before
 * the fix every user owned the base URL's host, where every user's entries
 * live, so bob's admin listed alice's mentions and his delete succeeded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostUser } from '../../src/contracts/accounts.js';
import { CookieJar } from '../helpers/app.js';
import { addUser, buildAdminApp, getAdmin, issueToken, snapshot, submitAdmin, type AdminTestApp } from '../helpers/admin.js';
import { DIALECTS } from '../helpers/databases.js';
import { SITE } from '../helpers/webmention.js';

/** The ids of the mentions an admin page lists (each has a delete form). */
const listed = (body: string) =>
  [...body.matchAll(/action="\/indieweb\/admin\/webmentions\/([A-Za-z0-9_-]+)\/delete"/g)].map((m) => m[1]).sort();

/** Creates an entry of the user through Micropub (the built-in in-memory handler); returns its URL. */
async function createEntry(t: AdminTestApp, user: HostUser, content: string): Promise<string> {
  const { token } = await issueToken(t, user, { scope: 'create' });
  const response = await t.app.inject({
    method: 'POST',
    url: '/indieweb/micropub/',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ h: 'entry', content }).toString(),
  });
  expect(response.statusCode).toBe(201);
  return response.headers.location as string;
}

for (const dialect of DIALECTS) {
  describe(`admin webmentions of two users on ${dialect}`, () => {
    let t: AdminTestApp;
    let alice: { user: HostUser; jar: CookieJar };
    let bob: { user: HostUser; jar: CookieJar };
    let mentions: { aliceEntry: string; aliceProfile: string; bobPage: string; nobody: string };
    const receive = async (source: string, target: string) => (await t.app.indieweb.webmention.receive(source, target)).record.id;
    const act = (who: { jar: CookieJar }, id: string, action: string) =>
      submitAdmin(t, who.jar, '/webmentions/', `/webmentions/${id}/${action}`, {});

    beforeAll(async () => {
      t = await buildAdminApp({}, { dialect });
      alice = await addUser(t, 'alice');
      bob = await addUser(t, 'bob');
      // alice's entry lives under the base URL's host, like every user's entries of the built-in handler
      const entry = await createEntry(t, alice.user, 'hello');
      expect(new URL(entry).host).toBe(new URL(SITE).host);
      // unreachable sources (refused before connecting), so "Check again" ends quickly
      mentions = {
        aliceEntry: await receive('http://127.0.0.1:9/reply-to-entry', entry),
        aliceProfile: await receive('http://127.0.0.1:9/reply-to-profile', 'https://alice.example/'),
        bobPage: await receive('http://127.0.0.1:9/reply-to-bob', 'https://bob.example/notes/1'),
        nobody: await receive('http://127.0.0.1:9/reply-to-about', `${SITE}/about`),
      };
    });
    afterAll(async () => {
      await t.close();
    });

    it("200 each user's page lists only their own mentions: alice her entry's and her profile's, bob his page's", async () => {
      expect(listed((await getAdmin(t, alice.jar, '/webmentions/')).body)).toEqual([mentions.aliceEntry, mentions.aliceProfile].sort());
      const bobs = await getAdmin(t, bob.jar, '/webmentions/');
      expect(bobs.statusCode).toBe(200);
      expect(listed(bobs.body)).toEqual([mentions.bobPage]);
      expect(bobs.body).not.toContain('reply-to-entry');
      expect(bobs.body).not.toContain('reply-to-profile');
      // filtering by alice's target does not reach her mentions either
      expect(listed((await getAdmin(t, bob.jar, `/webmentions/?target=${encodeURIComponent('https://alice.example/')}`)).body)).toEqual([]);
    });

    it.each(['spam', 'reprocess', 'delete'])("404 bob's POST %s of alice's mentions, and nothing changes", async (action) => {
      const before = await snapshot(t);
      for (const id of [mentions.aliceEntry, mentions.aliceProfile]) {
        const response = await act(bob, id, action);
        expect(response.statusCode).toBe(404);
        expect(response.body).toContain('No such webmention.');
      }
      expect(await snapshot(t)).toEqual(before);
    });

    it('404 for everyone on a mention that belongs to nobody identifiable (several accounts, no entry, no profile URL); no page lists it', async () => {
      const before = await snapshot(t);
      for (const who of [alice, bob]) {
        expect((await act(who, mentions.nobody, 'delete')).statusCode).toBe(404);
        expect(listed((await getAdmin(t, who.jar, '/webmentions/')).body)).not.toContain(mentions.nobody);
      }
      expect(await snapshot(t)).toEqual(before);
      expect((await t.app.indieweb.webmention.get(mentions.nobody)).ownerId).toBeNull();
    });

    it('303 alice can check again, mark as spam and delete her own mentions', async () => {
      expect((await act(alice, mentions.aliceProfile, 'reprocess')).statusCode).toBe(303);
      expect((await t.app.indieweb.webmention.get(mentions.aliceProfile)).status).toBe('failed');
      expect((await act(alice, mentions.aliceEntry, 'spam')).statusCode).toBe(303);
      expect((await t.app.indieweb.webmention.get(mentions.aliceEntry)).status).toBe('spam');
      expect((await act(alice, mentions.aliceEntry, 'delete')).statusCode).toBe(303);
      await expect(t.app.indieweb.webmention.get(mentions.aliceEntry)).rejects.toMatchObject({ status: 404 });
      // bob's mention was not touched by any of it
      expect((await t.app.indieweb.webmention.get(mentions.bobPage)).status).toBe('pending');
    });
  });
}

describe('admin webmentions: whose a mention is', () => {
  let t: AdminTestApp;
  beforeAll(async () => {
    t = await buildAdminApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("the only account owns every mention of the site; once a second account exists, new mentions of nobody's pages are nobody's", async () => {
    const alice = await addUser(t, 'alice');
    const { record: first } = await t.app.indieweb.webmention.receive('https://a.example/1', `${SITE}/about`);
    expect(first.ownerId).toBe(alice.user.id);
    expect(listed((await getAdmin(t, alice.jar, '/webmentions/')).body)).toEqual([first.id]);
    await addUser(t, 'bob');
    const { record: second } = await t.app.indieweb.webmention.receive('https://a.example/2', `${SITE}/about`);
    expect(second.ownerId).toBeNull();
    // what alice owned stays hers
    expect(listed((await getAdmin(t, alice.jar, '/webmentions/')).body)).toEqual([first.id]);
  });

  it('an entry belongs to its author even under a profile URL of another user that covers the whole base host', async () => {
    const carol = await t.app.indieweb.users!.addUser({ name: 'carol', me: [`${SITE}/`], password: 'carol password 1' });
    const dave = await addUser(t, 'dave');
    const entry = await createEntry(t, dave.user, 'dave was here');
    const { record: toEntry } = await t.app.indieweb.webmention.receive('https://b.example/1', entry);
    expect(toEntry.ownerId).toBe(dave.user.id);
    const { record: toPage } = await t.app.indieweb.webmention.receive('https://b.example/2', `${SITE}/colophon`);
    expect(toPage.ownerId).toBe(carol.id);
  });
});

describe('admin webmentions with the files handler', () => {
  const contentDir = mkdtempSync(path.join(os.tmpdir(), 'indiestack-wm-owner-files-'));
  let t: AdminTestApp;
  beforeAll(async () => {
    // every account's site lives on the base URL's host, below /sites/NAME
    t = await buildAdminApp({
      INDIEWEB_MICROPUB_HANDLER: 'files',
      INDIEWEB_FILES_CONTENT_DIR: contentDir,
      INDIEWEB_FILES_SITE_URL: `${SITE}/sites/{user}`,
      INDIEWEB_FILES_GIT: 'off',
    });
  });
  afterAll(async () => {
    await t.close();
    rmSync(contentDir, { recursive: true, force: true });
  });

  it("a mention of a post belongs to the account whose site holds it; the other account's admin neither lists it nor may act on it", async () => {
    const alice = await addUser(t, 'alice');
    const bob = await addUser(t, 'bob');
    const post = await createEntry(t, alice.user, "a post in alice's site");
    expect(post.startsWith(`${SITE}/sites/alice/`)).toBe(true);
    const { record } = await t.app.indieweb.webmention.receive('https://c.example/reply', post);
    expect(record.ownerId).toBe(alice.user.id);
    expect(listed((await getAdmin(t, alice.jar, '/webmentions/')).body)).toEqual([record.id]);
    expect(listed((await getAdmin(t, bob.jar, '/webmentions/')).body)).toEqual([]);
    expect((await submitAdmin(t, bob.jar, '/webmentions/', `/webmentions/${record.id}/delete`, {})).statusCode).toBe(404);
    expect((await t.app.indieweb.webmention.get(record.id)).status).toBe('pending');
  });
});
