import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { HAS_CHROMIUM, launchBrowser, screenshot, CHROMIUM, seriousViolations } from '../helpers/browser.js';
import { addAlice, PASSWORD, S256_CHALLENGE } from '../helpers/indieauth.js';
import { createViaJson } from '../helpers/micropub.js';
import { freePort, listenOnLoopback } from '../helpers/net.js';
import { PNG_1X1 } from '../helpers/admin.js';
const WIDTHS = [390, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;

if (!HAS_CHROMIUM) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** A page of ours: its screenshot name, its path, and what shows it is the right page. */
interface Visit {
  readonly name: string;
  readonly path: () => string;
  readonly heading: string | RegExp;
  readonly status?: number;
  readonly signedIn: boolean;
}

describe.skipIf(!HAS_CHROMIUM)('every page designed: 390 and 1280 px, light and dark, no serious axe violation, no overflow', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let client: http.Server;
  let clientBase: string;
  let signedInState: Awaited<ReturnType<BrowserContext['storageState']>>;
  let mentionId: string;
  let entryUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // private networks allowed: the stand-in app on loopback is discovered (its name shows on consent and Apps)
    t = await buildTestApp({
      env: { INDIEWEB_BASE_URL: base, INDIEWEB_ALLOW_PRIVATE_NETWORKS: 'true', INDIEWEB_MICROPUB_HANDLER: 'database' },
    });
    await addAlice(t, { me: [`${base}/`] });
    // a stand-in IndieAuth client describing itself with an h-app
    client = http.createServer((request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><title>Sketchbook</title><div class="h-app"><a class="u-url p-name" href="/">Sketchbook</a></div><p id="callback">${request.url?.startsWith('/callback') ? 'callback reached' : 'client'}</p>`,
      );
    });
    await listenOnLoopback(client, 0);
    clientBase = `http://127.0.0.1:${(client.address() as { port: number }).port}`;

    const alice = (await t.app.indieweb.users!.findByName('alice'))!;
    const issue = async (clientId: string, scope: string) =>
      (await t.app.indieweb.tokens.issue({ userId: alice.id, clientId, me: alice.me[0]!, scope, expiresIn: 86_400 })).token;
    const token = await issue(`${clientBase}/`, 'create update delete undelete media');
    await issue('https://app.example/', 'create');
    const boundary = 'designboundary';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="face.png"\r\nContent-Type: image/png\r\n\r\n`),
      PNG_1X1,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const upload = await t.app.inject({
      method: 'POST',
      url: '/indieweb/media/',
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    expect(upload.statusCode).toBe(201);
    const photo = upload.headers.location as string;
    await t.app.indieweb.profiles.update(alice, {
      name: ['Alice Example'],
      photo: [photo],
      url: [`${base}/`, 'https://social.example/@alice'],
      email: ['mailto:alice@alice.example'],
      note: ['Writes about rivers, bridges and winter walks.'],
      nickname: ['al'],
    });
    entryUrl = await createViaJson(t.app, token, {
      name: ['A walk by the river'],
      content: ['Cold but bright.'],
      published: ['2026-11-03T10:00:00Z'],
    });
    ({
      record: { id: mentionId },
    } = await t.app.indieweb.webmention.receive('https://carol.example/reply', entryUrl));
    await t.app.indieweb.webmention.receive(
      'https://spammer.example/post-with-a-rather-long-address/that-goes-on-and-on',
      `${base}/some-post`,
    );
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await launchBrowser();

    // sign in once through the form; every signed-in visit starts from this browser state
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/indieweb/login/`);
    await page.fill('#username', 'alice');
    await page.fill('#password', PASSWORD);
    await page.click('form[action="/indieweb/login/"] button[type=submit]');
    await page.waitForURL(`${base}/indieweb/`);
    signedInState = await context.storageState();
    await context.close();
  });

  afterAll(async () => {
    await browser?.close();
    client?.close();
    await t?.close();
  });

  const consentPath = () =>
    `/indieweb/auth/?${new URLSearchParams({
      response_type: 'code',
      client_id: `${clientBase}/`,
      redirect_uri: `${clientBase}/callback`,
      state: 'design-state',
      me: `${base}/`,
      scope: 'create update media profile',
      code_challenge: S256_CHALLENGE,
      code_challenge_method: 'S256',
    }).toString()}`;

  const VISITS: readonly Visit[] = [
    { name: 'login', path: () => '/indieweb/login/', heading: 'Sign in', signedIn: false },
    { name: 'profile-public', path: () => '/indieweb/profile/alice/', heading: 'Alice Example', signedIn: false },
    { name: 'webmention-status', path: () => `/indieweb/webmention/${mentionId}`, heading: /^Webmention: /, signedIn: false },
    { name: 'entry', path: () => new URL(entryUrl).pathname, heading: 'A walk by the river', signedIn: false },
    { name: 'entry-home', path: () => '/alice/', heading: 'Alice Example', signedIn: false },
    { name: 'home', path: () => '/indieweb/', heading: 'Signed in as alice', signedIn: true },
    { name: 'consent', path: consentPath, heading: 'Sign in to Sketchbook', signedIn: true },
    { name: 'admin-dashboard', path: () => '/indieweb/admin/', heading: 'Dashboard', signedIn: true },
    { name: 'not-found', path: () => '/indieweb/no-such-page/', heading: 'Not found', signedIn: false, status: 404 },
    { name: 'admin-write', path: () => '/indieweb/admin/write/', heading: /^Write: /, signedIn: true },
    { name: 'admin-posts', path: () => '/indieweb/admin/posts/', heading: 'Posts', signedIn: true },
    { name: 'admin-profile', path: () => '/indieweb/admin/profile/', heading: 'Profile', signedIn: true },
    { name: 'admin-apps', path: () => '/indieweb/admin/apps/', heading: 'Connected apps', signedIn: true },
    { name: 'admin-webmentions', path: () => '/indieweb/admin/webmentions/', heading: 'Webmentions', signedIn: true },
    {
      name: 'admin-webmention-settings',
      path: () => '/indieweb/admin/webmention-settings/',
      heading: 'Webmention settings',
      signedIn: true,
    },
    { name: 'admin-webmentions-sent', path: () => '/indieweb/admin/webmentions/sent/', heading: 'Sent webmentions', signedIn: true },
    { name: 'admin-media', path: () => '/indieweb/admin/media/', heading: 'Media', signedIn: true },
    { name: 'admin-setup', path: () => '/indieweb/admin/setup/', heading: 'Check my setup', signedIn: true },
    { name: 'admin-passkeys', path: () => '/indieweb/admin/passkeys/', heading: 'Passkeys', signedIn: true },
    { name: 'admin-account', path: () => '/indieweb/admin/account/', heading: 'Account', signedIn: true },
    { name: 'sign-out', path: () => '/indieweb/logout/', heading: 'Sign out', signedIn: true },
  ];

  async function open(
    width: number,
    colorScheme: 'light' | 'dark',
    signedIn: boolean,
  ): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      colorScheme,
      ...(signedIn ? { storageState: signedInState } : {}),
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    return { context, page, errors };
  }

  for (const visit of VISITS) {
    it(`${visit.name}: ${visit.signedIn ? 'signed in' : 'signed out'}, styled in both schemes at both widths, accessible, no overflow at 390 px`, async () => {
      // the four looks of a page load side by side: Chromium renders them in parallel while this worker waits
      const looks = SCHEMES.flatMap((colorScheme) => WIDTHS.map((width) => ({ colorScheme, width })));
      await Promise.all(
        looks.map(async ({ colorScheme, width }) => {
          const { context, page, errors } = await open(width, colorScheme, visit.signedIn);
          try {
            const response = await page.goto(`${base}${visit.path()}`);
            expect(response?.status(), `${visit.name} ${width} ${colorScheme}`).toBe(visit.status ?? 200);
            const heading = await page.locator('h1').first().textContent();
            if (typeof visit.heading === 'string') expect(heading).toBe(visit.heading);
            else expect(heading).toMatch(visit.heading);
            await expect(page.locator('script:not([src])').count()).resolves.toBe(0);
            await expect(page.locator('[style]').count()).resolves.toBe(0);
            // the stylesheet applied: the background follows the color scheme (never the browser's white or black)
            const background = String(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor'));
            expect(background).not.toMatch(/^rgba?\(0, 0, 0(, 0)?\)$|^rgb\(255, 255, 255\)$/);
            const [red] = background.match(/\d+/g)!.map(Number);
            if (colorScheme === 'dark') expect(red).toBeLessThan(40);
            else expect(red).toBeGreaterThan(230);
            // nothing wider than the screen
            const scrollWidth = Number(await page.evaluate('document.scrollingElement.scrollWidth'));
            expect(scrollWidth, `${visit.name} is ${scrollWidth} px wide at ${width} px`).toBeLessThanOrEqual(width);
            await screenshot(page, `${visit.name}-${colorScheme}-${width}`);
            expect(await seriousViolations(page), `${visit.name} ${width} ${colorScheme}`).toEqual([]);
            // a page answered with an error status (the 404 page) logs that status itself: only that line is expected
            expect(errors.filter((error) => visit.status === undefined || !error.includes(`status of ${visit.status} `))).toEqual([]);
          } finally {
            await context.close();
          }
        }),
      );
    });
  }

  it('the desktop layout uses the width: the sign-in panels sit side by side at 1280 px and stack at 390 px', async () => {
    for (const width of WIDTHS) {
      const { context, page } = await open(width, 'light', false);
      try {
        await page.goto(`${base}/indieweb/login/`);
        const boxes = await page.locator('main .panel').evaluateAll((panels) => panels.map((panel) => panel.getBoundingClientRect().top));
        expect(boxes).toHaveLength(2);
        if (width === 1280) expect(boxes[0]).toBe(boxes[1]);
        else expect(boxes[1]!).toBeGreaterThan(boxes[0]!);
      } finally {
        await context.close();
      }
    }
  });

  it('keyboard focus is visible: a focused field gets a 3 px outline', async () => {
    const { context, page } = await open(390, 'dark', false);
    try {
      await page.goto(`${base}/indieweb/login/`);
      await page.keyboard.press('Tab');
      await expect(page.evaluate('document.activeElement.className')).resolves.toBe('skip');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      const outline = await page.evaluate(
        'getComputedStyle(document.activeElement).outlineWidth + " " + getComputedStyle(document.activeElement).outlineStyle',
      );
      expect(outline).toBe('3px solid');
    } finally {
      await context.close();
    }
  });

  it('uploads a file from the Media page and shows the outcome', async () => {
    const { context, page, errors } = await open(390, 'light', true);
    try {
      await page.goto(`${base}/indieweb/admin/media/`);
      // the test clock stands still: a minute later, so the new file is the newest
      t.clock.advance(60);
      await page.setInputFiles('#media-file', { name: 'from-the-browser.png', mimeType: 'image/png', buffer: PNG_1X1 });
      await page.click('form[action="/indieweb/admin/media/upload"] button[type=submit]');
      await expect(page.locator('.notice').textContent()).resolves.toBe('Uploaded: the file is first in the list below.');
      await expect(page.locator('li.media-item').first().textContent()).resolves.toContain('from-the-browser.png');
      await screenshot(page, 'admin-media-uploaded-light-390');
      await page.setInputFiles('#media-file', {
        name: 'not-a-picture.png',
        mimeType: 'image/png',
        buffer: Buffer.from('<!doctype html><p>hello</p>'),
      });
      await page.click('form[action="/indieweb/admin/media/upload"] button[type=submit]');
      await expect(page.locator('#media-file-error').textContent()).resolves.toMatch(/^Not uploaded: /);
      await expect(page.locator('#media-file').getAttribute('aria-describedby')).resolves.toBe('media-file-hint media-file-error');
      await screenshot(page, 'admin-media-refused-light-390');
      expect(await seriousViolations(page)).toEqual([]);
      // the refused upload's 415 is the page the test asked for; nothing else failed
      expect(errors.filter((error) => !error.includes('status of 415'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a refused profile field shows its error tied to the field, accessible in dark at 390 px', async () => {
    const { context, page, errors } = await open(390, 'dark', true);
    try {
      await page.goto(`${base}/indieweb/admin/profile/`);
      await page.fill('#field-photo', 'javascript:alert(1)');
      await page.click('form[action="/indieweb/admin/profile/"] button[type=submit]');
      await expect(page.locator('#field-photo').getAttribute('aria-describedby')).resolves.toBe('field-photo-error');
      await expect(page.locator('#field-photo-error').textContent()).resolves.toContain('is not an absolute http(s) URL');
      await screenshot(page, 'admin-profile-error-dark-390');
      expect(Number(await page.evaluate('document.scrollingElement.scrollWidth'))).toBeLessThanOrEqual(390);
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
