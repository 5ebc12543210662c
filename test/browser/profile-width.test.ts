/**
 * The public profile of a new account (no photo yet) uses the page's width
 * on a desktop, instead of a narrow column.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { buildAdminApp, type AdminTestApp } from '../helpers/admin.js';
import { HAS_CHROMIUM, launchBrowser } from '../helpers/browser.js';
import { serveOnLoopback } from '../helpers/loopback.js';

describe.skipIf(!HAS_CHROMIUM)('the public profile in a real browser', () => {
  let t: AdminTestApp;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    t = await buildAdminApp();
    base = await serveOnLoopback(t.app);
    await t.app.indieweb.users!.addUser({ name: 'alice', me: ['https://alice.example/'], password: 'profile width password 1' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a card without a photo is as wide as the page column at 1280 px, not a narrow strip', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${base}/indieweb/profile/alice/`);
      const card = await page.locator('.profile-card').boundingBox();
      const main = await page.locator('main').boundingBox();
      expect(card?.width).toBeGreaterThan((main?.width ?? 0) * 0.8);
      const heading = await page.locator('.profile-card h1').boundingBox();
      expect(heading?.width, 'the heading spans the card').toBeGreaterThan(500);
    } finally {
      await context.close();
    }
  });
});
