import path from 'node:path';
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
        // which handler runs and what it means: both serve the posts as pages at the home, only one keeps them
        expect(empty.body).toContain('<a href="http://indiestack.test/alice/">http://indiestack.test/alice/</a>');
        if (handler === 'memory') {
          expect(empty.body).toMatch(/kept <strong>in memory<\/strong> \(the default handler\) and served as pages while the server runs/);
          expect(empty.body).toMatch(/<strong>gone when it stops<\/strong>.*<code>INDIEWEB_MICROPUB_HANDLER=database<\/code>/);
        } else expect(empty.body).toMatch(/stored in <strong>indiestack's database<\/strong>.*they survive a restart and served as pages/);

        const { token } = await issueToken(t, user);
        expect((await postForm(t.app, token, { h: 'entry', content: 'Hello from the dashboard test' })).statusCode).toBe(201);
        const withPost = await getAdmin(t, jar, '/');
        expect(withPost.body).toContain('Hello from the dashboard test</a></li>');
        // the post's link answers: its page
        const link = /<li><a href="([^"]+)">Hello from the dashboard test<\/a><\/li>/.exec(withPost.body)![1]!;
        const page = await t.app.inject({ method: 'GET', url: new URL(link.replaceAll('&amp;', '&')).pathname });
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain('class="h-entry');
      } finally {
        await t.close();
      }
    });
  }

  it('with the files handler: the posts are Markdown files in the account’s site directory, for a static site generator', async () => {
    const t = await buildAdminApp({ INDIEWEB_MICROPUB_HANDLER: 'files' });
    try {
      const { jar } = await addUser(t, 'alice');
      const page = await getAdmin(t, jar, '/');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<strong>Markdown files</strong> into <code>${path.join(t.config.files.contentDir, 'alice')}</code>`);
      expect(page.body).toContain('for your static site generator to publish');
      expect(page.body).not.toContain('http://indiestack.test/alice/feed.atom');
    } finally {
      await t.close();
    }
  });
});
