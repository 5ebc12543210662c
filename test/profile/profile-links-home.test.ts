import { describe, expect, it } from 'vitest';
import { buildAdminApp } from '../helpers/admin.js';
import { serveOnLoopback } from '../helpers/loopback.js';

describe('the public profile and the entry home', () => {
  for (const handler of ['database', 'memory'] as const)
    it(`with the ${handler} handler, /indieweb/profile/alice/ links the home /alice/ and its feeds, which answer`, async () => {
      const t = await buildAdminApp({ INDIEWEB_MICROPUB_HANDLER: handler });
      try {
        const base = await serveOnLoopback(t.app);
        await t.app.indieweb.users!.addUser({ name: 'alice', me: ['https://alice.example/'], password: 'profile home password 1' });
        const profile = await fetch(`${base}/indieweb/profile/alice/`, { headers: { accept: 'text/html' } });
        expect(profile.status).toBe(200);
        const body = await profile.text();
        for (const href of [
          'http://indiestack.test/alice/',
          'http://indiestack.test/alice/feed.atom',
          'http://indiestack.test/alice/feed.json',
        ]) {
          expect(body).toContain(`href="${href}"`);
          const answer = await fetch(`${base}${new URL(href).pathname}`);
          expect(answer.status, href).toBe(200);
        }
      } finally {
        await t.close();
      }
    });

  it('with the files handler (its posts are pages of the static site, not of this server), the profile links no home that would answer 404', async () => {
    const t = await buildAdminApp({ INDIEWEB_MICROPUB_HANDLER: 'files' });
    try {
      await t.app.indieweb.users!.addUser({ name: 'alice', me: ['https://alice.example/'], password: 'profile home password 1' });
      const profile = await t.app.inject({ method: 'GET', url: '/indieweb/profile/alice/', headers: { accept: 'text/html' } });
      expect(profile.statusCode).toBe(200);
      expect(profile.body).not.toContain('href="http://indiestack.test/alice/"');
    } finally {
      await t.close();
    }
  });
});
