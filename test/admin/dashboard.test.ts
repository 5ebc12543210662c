import { describe, expect, it } from 'vitest';
import { addUser, buildAdminApp, getAdmin, issueToken } from '../helpers/admin.js';
import { postForm } from '../helpers/micropub.js';

describe('the page after sign-in and the admin dashboard', () => {
  it('the page after sign-in links to Write, Posts, Check my setup and Webmention settings, and its Admin link opens the dashboard', async () => {
    const t = await buildAdminApp();
    try {
      const { jar } = await addUser(t, 'alice');
      const home = await t.app.inject({ method: 'GET', url: '/indieweb/', headers: { cookie: jar.header() } });
      expect(home.statusCode).toBe(200);
      for (const path of [
        '/indieweb/admin/write/',
        '/indieweb/admin/posts/',
        '/indieweb/admin/setup/',
        '/indieweb/admin/webmention-settings/',
      ])
        expect(home.body).toContain(`${path}"`);
      expect(home.body).toMatch(/<a href="http:\/\/indiestack\.test\/indieweb\/admin\/">Admin<\/a>/);
    } finally {
      await t.close();
    }
  });

  for (const handler of ['memory', 'database'] as const) {
    it(`with the ${handler} handler: what to do next, which handler keeps the posts, the latest posts and webmentions`, async () => {
      const t = await buildAdminApp(handler === 'database' ? { INDIEWEB_MICROPUB_HANDLER: 'database' } : {});
      try {
        const { user, jar } = await addUser(t, 'alice');
        const empty = await getAdmin(t, jar, '/');
        expect(empty.statusCode).toBe(200);
        expect(empty.body).toContain('<h1>Dashboard</h1>');
        expect(empty.body).toContain('What to do next');
        expect(empty.body).toContain('No posts yet.');
        expect(empty.body).toContain('No webmentions yet');
        if (handler === 'memory') expect(empty.body).toMatch(/kept <strong>in memory<\/strong>.*gone when it stops/);
        else expect(empty.body).toContain('<a href="http://indiestack.test/alice/">http://indiestack.test/alice/</a>');

        const { token } = await issueToken(t, user);
        expect((await postForm(t.app, token, { h: 'entry', content: 'Hello from the dashboard test' })).statusCode).toBe(201);
        const withPost = await getAdmin(t, jar, '/');
        expect(withPost.body).toContain('Hello from the dashboard test</a></li>');
      } finally {
        await t.close();
      }
    });
  }
});
