import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebmentionsRepository, type WebmentionsRepository } from '../../src/storage/repositories/webmentions.js';
import type { CookieJar } from '../helpers/app.js';
import { addUser, buildAdminApp, getAdmin, type AdminTestApp } from '../helpers/admin.js';

const TARGET = 'https://alice.example/posts/1';
const REASON = 'source has no link to target <script>alert(1)</script> & "more"';
const ESCAPED = 'source has no link to target &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;more&quot;';

describe('why a webmention failed: the stored reason, escaped', () => {
  let t: AdminTestApp;
  let jar: CookieJar;
  let mentions: WebmentionsRepository;
  let ownerId: string;

  async function mention(id: string, source: string): Promise<string> {
    const now = t.clock.now().toISOString();
    t.clock.advance(1);
    const { record } = await mentions.upsert({ id, source, target: TARGET, targetKey: TARGET, targetHost: 'alice.example', ownerId, now });
    return record.id;
  }

  function statusPage(id: string) {
    return t.app.inject({ method: 'GET', url: `/indieweb/webmention/${id}` });
  }

  beforeAll(async () => {
    t = await buildAdminApp();
    const alice = await addUser(t, 'alice');
    jar = alice.jar;
    ownerId = alice.user.id;
    mentions = createWebmentionsRepository(t.database.db);
  });

  afterAll(async () => {
    await t.close();
  });

  it("200 the Webmentions page shows a failed mention's reason under it, and none for others", async () => {
    const failed = await mention('failedmention000000', 'https://bob.example/failed');
    await mentions.markStatus(failed, 'failed', REASON, t.clock.now().toISOString());
    const spam = await mention('spammention0000000', 'https://bob.example/spam');
    await mentions.markStatus(spam, 'failed', 'an old reason', t.clock.now().toISOString());
    await mentions.markStatus(spam, 'spam', 'kept by mistake', t.clock.now().toISOString());
    await mention('pendingmention0000', 'https://bob.example/pending');

    const page = await getAdmin(t, jar, '/webmentions/');
    expect(page.statusCode).toBe(200);
    const items = page.body.split('<li class="mention"').slice(1);
    const itemOf = (source: string) => items.find((item) => item.includes(`href="${source}"`)) ?? '';
    expect(itemOf('https://bob.example/failed')).toContain(`<p class="failure">Why it failed: ${ESCAPED}</p>`);
    expect(itemOf('https://bob.example/spam')).not.toContain('Why it failed');
    expect(itemOf('https://bob.example/pending')).not.toContain('Why it failed');
    expect(page.body).not.toContain('<script>alert(1)');
  });

  it('200 the public status page shows the reason of a failed mention, escaped', async () => {
    const page = await statusPage('failedmention000000');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain(`<dt>Status</dt><dd>failed</dd><dt>Why it failed</dt><dd>${ESCAPED}</dd>`);
    expect(page.body).not.toContain('<script>alert(1)');
  });

  it('200 the public status page of a mention that has not failed shows no reason', async () => {
    for (const id of ['spammention0000000', 'pendingmention0000']) {
      const page = await statusPage(id);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<dt>Status</dt>');
      expect(page.body).not.toContain('Why it failed');
    }
  });
});
