/**
 * Issue 28 F21: the Write area calls the Micropub endpoint in process with a
 * token of its own; viewing the Write and Posts pages (and publishing) must
 * not leave token rows behind. Real HTTP on loopback, the database handler,
 * SQLite and PostgreSQL.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, buildAdminApp, type AdminTestApp } from '../helpers/admin.js';
import { DIALECTS } from '../helpers/databases.js';
import { LoopbackBrowser, serveOnLoopback } from '../helpers/loopback.js';

const VIEWS = 25;

for (const dialect of DIALECTS) {
  describe(`token rows of the Write area (${dialect}, real HTTP)`, () => {
    let t: AdminTestApp;
    let browser: LoopbackBrowser;

    beforeAll(async () => {
      t = await buildAdminApp({ INDIEWEB_MICROPUB_HANDLER: 'database' }, { dialect });
      const { password } = await addUser(t, 'alice');
      browser = new LoopbackBrowser(await serveOnLoopback(t.app));
      await browser.signIn('alice', password);
    });
    afterAll(async () => t?.close());

    const tokenRows = async () =>
      Number((await sql<{ n: number | string }>`select count(*) as n from indieweb_token`.execute(t.database.db)).rows[0]!.n);

    it(`${VIEWS} views of Write and of Posts, and a post published, leave the token table as it was; the post is there`, async () => {
      const before = await tokenRows();
      for (let view = 0; view < VIEWS; view++) {
        expect((await browser.get('/indieweb/admin/write/')).status).toBe(200);
        expect((await browser.get('/indieweb/admin/posts/')).status).toBe(200);
      }
      const published = await browser.submit('/indieweb/admin/write/?type=note', '/indieweb/admin/write/', {
        type: 'note',
        content: 'Written through the admin',
        intent: 'publish',
      });
      expect(published.status).toBe(303);
      const posts = await browser.get('/indieweb/admin/posts/');
      expect(posts.body).toContain('Written through the admin');
      expect(await tokenRows()).toBe(before);
    });
  });
}
