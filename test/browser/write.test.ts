/**
 * The Write area in Chromium, on the in-memory and the database handler:
 * sign in with a passkey (Chromium's virtual authenticator), write a photo
 * note with alt text (previewed by the script before upload), edit it,
 * delete and restore it (issue 19's "done when"). Screenshots of each step, and
 * axe-core on every page shown: no serious or critical violation.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM, HAS_CHROMIUM, launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import { freePort } from '../helpers/net.js';
import { addAlice, PASSWORD } from '../helpers/indieauth.js';
import { PNG_1X1 } from '../helpers/admin.js';

if (!HAS_CHROMIUM) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe.skipIf(!HAS_CHROMIUM).each(['memory', 'database'] as const)('writing in a real browser (%s handler)', (handler) => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let closePage: () => Promise<void>;

  beforeAll(async () => {
    const port = await freePort();
    // WebAuthn needs a secure context and a domain as RP ID: http://localhost is both
    base = `http://localhost:${port}`;
    t = await buildTestApp({
      env: { INDIEWEB_BASE_URL: base, ...(handler === 'database' ? { INDIEWEB_MICROPUB_HANDLER: 'database' } : {}) },
    });
    await addAlice(t, { me: [`${base}/`] });
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  beforeEach(async () => {
    ({ page, errors, close: closePage } = await openPage(browser));
  });

  afterEach(async () => {
    await closePage();
    // a console error (a CSP violation included) fails the test
    expect(errors).toEqual([]);
  });

  /** The entry as the handler holds it, through the Micropub endpoint with a token of the test's own. */
  async function source(url: string): Promise<{ status: number; properties?: Record<string, unknown[]> }> {
    const user = (await t.app.indieweb.users!.findByName('alice'))!;
    const { token } = await t.app.indieweb.tokens.issue({
      userId: user.id,
      clientId: 'https://app.example/',
      me: user.me[0]!,
      scope: 'update',
      expiresIn: 600,
    });
    const response = await t.app.inject({
      method: 'GET',
      url: `/indieweb/micropub/?q=source&url=${encodeURIComponent(url)}`,
      headers: { authorization: `Bearer ${token}` },
    });
    return response.statusCode === 200 ? { status: 200, ...(response.json() as object) } : { status: response.statusCode };
  }

  async function checked(name: string): Promise<void> {
    await screenshot(page, `write-${handler}-${name}`);
    expect(await seriousViolations(page)).toEqual([]);
  }

  /** A platform authenticator that verifies the user without asking, through the DevTools Protocol. */
  async function addAuthenticator(cdp: CDPSession): Promise<void> {
    await cdp.send('WebAuthn.enable', { enableUI: false });
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
  }

  it('signs in with a passkey, writes a note with a photo and alt text, edits it, deletes and restores it', async () => {
    // a passkey registered once (signed in with the password), then the password is not used again
    await addAuthenticator(await page.context().newCDPSession(page));
    await page.goto(`${base}/indieweb/login/?return_to=${encodeURIComponent('/indieweb/admin/passkeys/')}`);
    await page.fill('#username', 'alice');
    await page.fill('#password', PASSWORD);
    await page.click('form[action="/indieweb/login/"] button[type=submit]');
    await page.waitForURL(`${base}/indieweb/admin/passkeys/`);
    await page.fill('#passkey-name', 'Test laptop');
    await page.click('#passkey-add button[type=submit]');
    await expect(page.locator('.notice').textContent()).resolves.toBe('Passkey added.');
    await page.click('nav button[type=submit]');
    await page.waitForURL(`${base}/indieweb/login/`);

    await page.goto(`${base}/indieweb/admin/write/?type=photo`);
    expect(new URL(page.url()).pathname).toBe('/indieweb/login/');
    await page.click('#passkey-sign-in button[type=submit]');
    await page.waitForURL(`${base}/indieweb/admin/write/?type=photo`);
    const [passkey] = await t.app.indieweb.passkeys!.list((await t.app.indieweb.users!.findByName('alice'))!.id);
    expect(passkey!.lastUsedAt).not.toBeNull();
    await expect(page.locator('h1').textContent()).resolves.toBe('Write: Photo');

    // the script shows the chosen photo before it is uploaded, with the alt text as it is typed
    await page.fill('#field-content', 'A very small picture');
    await page.setInputFiles('#media-file', { name: 'pixel.png', mimeType: 'image/png', buffer: PNG_1X1 });
    await page.fill('#media-alt-new', 'One red pixel on nothing');
    const preview = page.locator('img[data-write-preview]');
    await preview.waitFor({ state: 'visible' });
    await expect(preview.getAttribute('alt')).resolves.toBe('One red pixel on nothing');
    await expect(preview.getAttribute('src')).resolves.toMatch(/^data:image\/png;base64,/);
    await checked('1-photo-form');

    await page.click('button[value=publish]');
    await page.waitForURL(/\/indieweb\/admin\/posts\/\?done=published/);
    await expect(page.locator('.notice').textContent()).resolves.toBe('Published.');
    const url = new URL(page.url()).searchParams.get('url')!;
    const created = await source(url);
    const photo = (created.properties?.photo as [{ value: string; alt: string }])[0];
    expect(created.properties).toEqual({
      content: ['A very small picture'],
      photo: [{ value: photo.value, alt: 'One red pixel on nothing' }],
    });
    await checked('2-published');

    // "The post: URL" opens the post's own page, on either handler (issue 30 item 3): its h-entry with the photo and alt text
    await page.click(`a:text-is("${url}")`);
    await page.waitForURL(url);
    await expect(page.locator('.h-entry .e-content, .h-entry .p-content').first().textContent()).resolves.toContain('A very small picture');
    await expect(page.locator('.h-entry img.u-photo').getAttribute('alt')).resolves.toBe('One red pixel on nothing');
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 900 });
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, `write-${handler}-2-entry-page`);
    await page.setViewportSize(viewport);
    await page.goBack();

    // edit: the photo is shown with its alt text; change the text and the alt
    await page.click('a:text-is("Edit it")');
    await page.waitForURL(/\/indieweb\/admin\/posts\/edit\?url=/);
    await expect(page.locator('#media-alt-0').inputValue()).resolves.toBe('One red pixel on nothing');
    await expect(page.locator(`img[src="${photo.value}"]`).getAttribute('alt')).resolves.toBe('One red pixel on nothing');
    await page.fill('#field-content', 'A very small picture, edited');
    await page.fill('#media-alt-0', 'A single red pixel');
    await checked('3-edit');
    await page.click('button[value=publish]');
    await page.waitForURL(/done=updated/);
    await expect(page.locator('.notice').textContent()).resolves.toBe('Changes saved.');
    expect((await source(url)).properties).toEqual({
      content: ['A very small picture, edited'],
      photo: [{ value: photo.value, alt: 'A single red pixel' }],
    });

    // the Posts page lists it; delete, then restore from the notice
    await page.goto(`${base}/indieweb/admin/posts/`);
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);
    await checked('4-posts');
    await page.click('tbody button:text-is("Delete")');
    await page.waitForURL(/done=post-deleted/);
    await expect(page.locator('.notice').textContent()).resolves.toBe('Post deleted.');
    expect((await source(url)).status).toBe(400);
    await checked('5-deleted');
    await page.click('button:text-is("Restore it")');
    await page.waitForURL(/done=restored/);
    await expect(page.locator('.notice').textContent()).resolves.toBe('Post restored.');
    expect((await source(url)).properties).toEqual({
      content: ['A very small picture, edited'],
      photo: [{ value: photo.value, alt: 'A single red pixel' }],
    });
    await checked('6-restored');
  });

  it('keeps what was typed when the form is refused, and works with the server-side preview', async () => {
    await page.goto(`${base}/indieweb/admin/write/?type=article`);
    if (new URL(page.url()).pathname === '/indieweb/login/') {
      await page.fill('#username', 'alice');
      await page.fill('#password', PASSWORD);
      await page.click('form[action="/indieweb/login/"] button[type=submit]');
      await page.waitForURL(`${base}/indieweb/admin/write/?type=article`);
    }
    await page.fill('#field-content', 'Some **Markdown** without a title');
    // the browser itself refuses an empty required title; the server's check is what a browser without it meets
    await page.evaluate("document.querySelector('form[data-write-form]').noValidate = true");
    await page.click('button[value=publish]');
    await page.waitForLoadState();
    await expect(page.locator('#error-name').textContent()).resolves.toBe('This cannot be empty.');
    await expect(page.locator('#field-content').inputValue()).resolves.toBe('Some **Markdown** without a title');
    await checked('7-refused');
    await page.evaluate("document.querySelector('form[data-write-form]').noValidate = true");
    await page.click('button[value=preview]');
    await page.waitForLoadState();
    await expect(page.locator('#preview-heading + div strong').textContent()).resolves.toBe('Markdown');
    await checked('8-preview');
  });
});
