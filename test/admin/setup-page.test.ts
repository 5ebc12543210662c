/**
 * The admin's "Check my setup" over real HTTP: the server listens on
 * loopback (its base URL), so the doctor it runs reaches it from the outside
 * as `indiestack doctor` does, and the homepages are local pages that get
 * each case right and wrong (as in test/operations/doctor.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkTags } from '../../src/profile/template-helpers.js';
import { ADMIN, buildAdminApp, type AdminTestApp } from '../helpers/admin.js';
import { CookieJar, form, hiddenField, signIn } from '../helpers/app.js';
import { freePort } from '../helpers/net.js';
import { PRIVATE_OK, startSourceServer, type SourceServer } from '../helpers/webmention.js';

const H_CARD = '<div class="h-card"><a class="p-name u-url" href="/">Alice</a></div>';
const page = (head: string, body = H_CARD) => `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: Headers;
}

/** One row of a results table: status, check name (without the profile URL of a homepage's table), and the last cell's markup. */
interface Row {
  readonly status: string;
  readonly name: string;
  readonly found: string;
}

function rows(body: string): Row[] {
  return [...body.matchAll(/<tr><td><strong>(PASS|WARN|FAIL)<\/strong><\/td><td>(.*?)<\/td><td>(.*?)<\/td><\/tr>/gs)].map((match) => ({
    status: match[1]!,
    name: match[2]!.replace(/<wbr>/g, ''),
    found: match[3]!.replace(/<wbr>/g, ''),
  }));
}

describe('admin: Check my setup', () => {
  let t: AdminTestApp;
  let base: string;
  let homepage: SourceServer;
  const jars = new Map<string, CookieJar>();

  /** A real HTTP request to an admin path as the browser of `jar`. */
  async function request(jar: CookieJar, method: 'GET' | 'POST', path: string, fields?: Record<string, string>): Promise<Answer> {
    const response = await fetch(`${base}${ADMIN}${path}`, {
      method,
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(fields === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(fields === undefined ? {} : { body: form(fields) }),
    });
    jar.store(response.headers.getSetCookie());
    return { status: response.status, body: await response.text(), headers: response.headers };
  }

  /** Loads the page for its CSRF token, then presses the button. */
  async function runChecks(name: string): Promise<Answer> {
    const jar = jars.get(name)!;
    const shown = await request(jar, 'GET', '/setup/');
    expect(shown.status).toBe(200);
    return request(jar, 'POST', '/setup/', { _csrf: hiddenField(shown.body, '_csrf') });
  }

  beforeAll(async () => {
    homepage = await startSourceServer();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await buildAdminApp({ INDIEWEB_BASE_URL: base, ...PRIVATE_OK });
    await t.app.listen({ host: '127.0.0.1', port });
    homepage.set('/alice/', page(linkTags(base)));
    // old endpoints of another service, no Micropub link, and a name that is markup
    homepage.set(
      '/olga/',
      page(
        '<link rel="authorization_endpoint" href="https://indieauth.com/auth">',
        '<div class="h-card"><span class="p-name">&lt;img src=x onerror=alert(1)&gt;</span></div>',
      ),
    );
    for (const name of ['alice', 'olga']) {
      await t.app.indieweb.users!.addUser({ name, me: [homepage.url(`/${name}/`)], password: `${name} password 1` });
      jars.set(name, await signIn(t.app, name, `${name} password 1`));
    }
  });

  afterAll(async () => {
    await t?.close();
    await homepage?.close();
  });

  it('the page offers the button (a form with the CSRF token), the homepage links, and a link in the navigation of every admin page', async () => {
    const shown = await request(jars.get('alice')!, 'GET', '/setup/');
    expect(shown.status).toBe(200);
    expect(shown.body).toContain('<h1>Check my setup</h1>');
    expect(shown.body).toMatch(
      /<form method="post" action="\/indieweb\/admin\/setup\/"><input type="hidden" name="_csrf" value="[^"]+"><button type="submit">Check my setup<\/button><\/form>/,
    );
    expect(shown.body).toContain(`&lt;link rel=&quot;micropub&quot; href=&quot;${base}/indieweb/micropub/&quot;&gt;`);
    expect(rows(shown.body)).toEqual([]);
    // nothing was fetched for showing the page
    expect(homepage.hits('/alice/')).toBe(0);
    const profile = await request(jars.get('alice')!, 'GET', '/profile/');
    expect(profile.body).toContain(`<a href="${ADMIN}/setup/">Check my setup</a>`);
  });

  it('signed out: GET and POST go to the sign-in page, and nothing is fetched', async () => {
    const stranger = new CookieJar();
    const shown = await request(stranger, 'GET', '/setup/');
    expect(shown.status).toBe(303);
    expect(shown.headers.get('location')).toContain('/indieweb/login/');
    const posted = await request(stranger, 'POST', '/setup/', {});
    expect(posted.status).toBe(303);
    expect(homepage.hits('/alice/')).toBe(0);
  });

  it('403 "Form expired" without the CSRF token or with another one, and nothing is fetched', async () => {
    const jar = jars.get('alice')!;
    const missing = await request(jar, 'POST', '/setup/', {});
    expect(missing.status).toBe(403);
    expect(missing.body).toContain('The form expired or did not come from this site');
    const forged = await request(jar, 'POST', '/setup/', { _csrf: 'not-the-token' });
    expect(forged.status).toBe(403);
    expect(rows(forged.body)).toEqual([]);
    // another user's token is not this user's
    const olgas = hiddenField((await request(jars.get('olga')!, 'GET', '/setup/')).body, '_csrf');
    expect((await request(jar, 'POST', '/setup/', { _csrf: olgas })).status).toBe(403);
    expect(homepage.hits('/alice/')).toBe(0);
  });

  it('a homepage that gets everything right: every homepage row PASS, the server rows below, nothing fails', async () => {
    const answer = await runChecks('alice');
    expect(answer.status).toBe(200);
    const found = rows(answer.body);
    const me = homepage.url('/alice/');
    expect(found.filter((row) => row.status === 'FAIL')).toEqual([]);
    for (const rel of ['indieauth-metadata', 'authorization_endpoint', 'token_endpoint', 'micropub', 'webmention']) {
      expect(found).toContainEqual({ status: 'PASS', name: `profile-link ${rel}`, found: 'points at this server' });
    }
    expect(found).toContainEqual({ status: 'PASS', name: 'h-card', found: 'h-card found (name: Alice)' });
    expect(found.find((row) => row.name === 'authorization-header')?.status).toBe('PASS');
    // http on this machine: a warning that says what to do on the internet
    expect(found.find((row) => row.name === 'base-url')).toMatchObject({
      status: 'WARN',
      found: expect.stringContaining('<br>Fix: fine for trying out; on the internet serve https'),
    });
    expect(found.find((row) => row.name === 'media-storage')?.status).toBe('PASS');
    expect(found.map((row) => row.name)).toEqual(expect.arrayContaining(['clock', 'secret', 'database', 'job-queue']));
    // the homepage's rows come first, in a table of their own named after it
    expect(answer.body.replace(/<wbr>/g, '')).toContain(
      `<caption>Your homepage <a href="${me}">${me}</a>, as an app signing in with it sees it</caption>`,
    );
    expect(answer.body.indexOf('<td>profile-link micropub</td>')).toBeGreaterThan(answer.body.indexOf(`<caption>Your homepage`));
    expect(answer.body.indexOf('<td>profile-link micropub</td>')).toBeLessThan(answer.body.indexOf('<caption>This server'));
    expect(answer.body.indexOf('<td>base-url</td>')).toBeGreaterThan(answer.body.indexOf('<caption>This server'));
    expect(answer.body).toMatch(/<p class="notice" role="status">\d+ checks: \d+ passed, \d+ with a warning, 0 failed\.<\/p>/);
    expect(answer.body).toContain('>Check again</button>');
    expect(homepage.hits('/alice/')).toBe(1);
  });

  it('a homepage that gets it wrong: FAIL rows for the old endpoints with the fix, WARN for the missing links, the name escaped', async () => {
    const answer = await runChecks('olga');
    expect(answer.status).toBe(200);
    const found = rows(answer.body);
    const me = homepage.url('/olga/');
    expect(found).toContainEqual({
      status: 'FAIL',
      name: 'profile-link authorization_endpoint',
      found: `${me} links rel=&quot;authorization_endpoint&quot; to https://indieauth.com/auth, not this server (an old endpoint?)<br>Fix: replace it with ${base}/indieweb/auth/ (see “Links for your homepage” below)`,
    });
    expect(found.find((row) => row.name === 'profile-link micropub')).toMatchObject({
      status: 'WARN',
      found: expect.stringContaining(`<br>Fix: add the links shown under “Links for your homepage” below to the &lt;head&gt; of ${me}`),
    });
    expect(answer.body).toMatch(
      /<p class="error" role="alert">\d+ checks: \d+ passed, \d+ with a warning, [1-9]\d* failed\. Fix the failures first/,
    );
    // text from the homepage is shown, never run
    expect(answer.body).toContain('(name: &lt;img src=x onerror=alert(1)&gt;)');
    expect(answer.body).not.toContain('<img src=x');
  });

  it('one run per account at a time: a second press while one runs is 429 and fetches nothing; another account is not held up', async () => {
    const hold = homepage.hold('/alice/');
    const jar = jars.get('alice')!;
    const shown = await request(jar, 'GET', '/setup/');
    const csrf = hiddenField(shown.body, '_csrf');
    const hits = homepage.hits('/alice/');
    const first = request(jar, 'POST', '/setup/', { _csrf: csrf });
    await hold.waiting();
    const second = await request(jar, 'POST', '/setup/', { _csrf: csrf });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('10');
    expect(second.body).toContain('A check of your setup is already running');
    expect(rows(second.body)).toEqual([]);
    expect(homepage.hits('/alice/')).toBe(hits + 1);
    // olga's run is not held up by alice's
    expect((await runChecks('olga')).status).toBe(200);
    hold.release();
    const done = await first;
    expect(done.status).toBe(200);
    expect(rows(done.body).length).toBeGreaterThan(10);
    // and once it has finished, the button works again
    expect((await request(jar, 'POST', '/setup/', { _csrf: csrf })).status).toBe(200);
  });
});
