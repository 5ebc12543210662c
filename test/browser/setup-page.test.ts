/**
 * "Check my setup" in Chromium: sign in, press the button, read the rows;
 * a screenshot of the results on a phone-sized screen, and no serious or
 * critical axe-core violation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { linkTags } from '../../src/profile/template-helpers.js';
import { buildAdminApp, type AdminTestApp } from '../helpers/admin.js';
import { CHROMIUM, HAS_CHROMIUM, launchBrowser, openPage, screenshot, seriousViolations } from '../helpers/browser.js';
import { freePort } from '../helpers/net.js';
import { PRIVATE_OK, startSourceServer, type SourceServer } from '../helpers/webmention.js';

if (!HAS_CHROMIUM) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const PASSWORD = 'setup page password 1';

describe.skipIf(!HAS_CHROMIUM)('Check my setup in a real browser', () => {
  let t: AdminTestApp;
  let base: string;
  let homepage: SourceServer;
  let browser: Browser;

  beforeAll(async () => {
    homepage = await startSourceServer();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await buildAdminApp({ INDIEWEB_BASE_URL: base, ...PRIVATE_OK });
    await t.app.listen({ host: '127.0.0.1', port });
    // right links in the Link header, an old Micropub endpoint first in the HTML, no h-card
    homepage.set('/alice/', {
      headers: { 'content-type': 'text/html; charset=utf-8', link: `<${base}/indieweb/metadata>; rel="indieauth-metadata"` },
      body: `<!DOCTYPE html><html><head><link rel="micropub" href="https://old.example/micropub">${linkTags(base)}</head><body><p>Alice</p></body></html>`,
    });
    await t.app.indieweb.users!.addUser({ name: 'alice', me: [homepage.url('/alice/')], password: PASSWORD });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await homepage?.close();
  });

  it('runs the checks from the button and shows one row per check; no console error, no serious axe violation', async () => {
    const { page, errors, close } = await openPage(browser);
    try {
      await page.goto(`${base}/indieweb/admin/setup/`);
      await page.fill('#username', 'alice');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForURL(`${base}/indieweb/admin/setup/`);
      await expect(page.locator('h1').textContent()).resolves.toBe('Check my setup');
      expect(await seriousViolations(page)).toEqual([]);

      await page.click('main button:has-text("Check my setup")');
      await page.waitForSelector('h2:has-text("Results")', { timeout: 60_000 });
      const micropub = page.locator('tr', { hasText: 'profile-link micropub' });
      await expect(micropub.locator('td').first().textContent()).resolves.toBe('FAIL');
      await expect(micropub.textContent()).resolves.toContain('clients take the first one');
      await expect(page.locator('tr', { hasText: 'profile-link indieauth-metadata' }).textContent()).resolves.toContain('PASS');
      await expect(page.locator('tr', { hasText: 'authorization-header' }).locator('td').first().textContent()).resolves.toBe('PASS');
      await expect(page.locator('[role=alert]').first().textContent()).resolves.toMatch(/failed\. Fix the failures first/);
      await screenshot(page, 'admin-setup');
      expect(await seriousViolations(page)).toEqual([]);

      // on a phone (390 px) the captions read as lines of text, not one word per line, and the link-tag box shows every tag
      await page.setViewportSize({ width: 390, height: 900 });
      for (const caption of await page.locator('caption').all()) {
        const box = await caption.boundingBox();
        expect(box?.width, 'a caption as wide as the page').toBeGreaterThan(300);
      }
      const tags = page.locator('textarea[readonly]');
      const [scrollHeight, clientHeight] = (await tags.evaluate((box) => [box.scrollHeight, box.clientHeight])) as [number, number];
      expect(scrollHeight, 'the link-tag box cuts no tag').toBeLessThanOrEqual(clientHeight);
      // with its results (tables, the link tags) the page is no wider than the phone, nor is any panel or table in it
      expect(Number(await page.evaluate('document.documentElement.scrollWidth')), 'the page at 390 px').toBeLessThanOrEqual(390);
      const widest = Number(
        await page.evaluate(
          "Math.max(...[...document.querySelectorAll('main section, main table, main .panel, main textarea')].map((e) => e.getBoundingClientRect().right))",
        ),
      );
      expect(widest, 'the right edge of the widest section, table or box').toBeLessThanOrEqual(390);
      expect(widest, 'sections and tables were measured').toBeGreaterThan(300);
      await screenshot(page, 'admin-setup-390');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
