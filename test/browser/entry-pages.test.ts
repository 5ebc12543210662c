import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM, HAS_CHROMIUM, launchBrowser, screenshot, seriousViolations } from '../helpers/browser.js';
import { entriesApp, seedMention, type EntriesTestApp } from '../helpers/entries.js';
import { freePort } from '../helpers/net.js';
import { postJson } from '../helpers/micropub.js';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a3d4b1a50000000049454e44ae426082',
  'hex',
);
if (!HAS_CHROMIUM) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** Uploads a PNG through the media endpoint; its URL is on our own origin (the pages' CSP allows 'self'). */
async function uploadPng(t: EntriesTestApp, token: string): Promise<string> {
  const boundary = 'entrypagesboundary';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="face.png"\r\nContent-Type: image/png\r\n\r\n`),
    PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const response = await t.app.inject({
    method: 'POST',
    url: '/indieweb/media/',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  if (response.statusCode !== 201) throw new Error(`upload answered ${response.statusCode}: ${response.body}`);
  return response.headers.location as string;
}

describe.skipIf(!HAS_CHROMIUM)('entry pages in a real browser', () => {
  let t: EntriesTestApp;
  let base: string;
  let browser: Browser;
  let entryUrl: string;
  let goneUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await entriesApp({ env: { INDIEWEB_BASE_URL: base } });
    const token = await t.token();
    const photo = await uploadPng(t, token);
    const alice = (await t.app.indieweb.users!.findByName('alice'))!;
    await t.app.indieweb.profiles.update(alice, {
      name: ['Alice Example'],
      photo: [photo],
      url: ['https://alice.example/'],
      note: ['Writes about rivers, bridges and winter walks.'],
    });
    entryUrl = await t.create({
      name: ['A walk by the river'],
      content: [
        {
          html: '<p>Cold but <em>bright</em>. The water was high after a week of rain, and the old bridge looked smaller than I remembered.</p><blockquote><p>Rivers know this: there is no hurry.</p></blockquote>',
        },
      ],
      published: ['2026-11-03T10:00:00Z'],
      category: ['walks', 'winter'],
      photo: [{ value: photo, alt: 'A tiny square standing in for the river' }],
      location: ['Leipzig'],
      'in-reply-to': ['https://bob.example/posts/rivers'],
      syndication: ['https://social.example/@alice/1'],
    });
    await t.create({ content: ['A short note without a title, to see how the feed shows one.'], published: ['2026-11-02T08:00:00Z'] });
    await t.create(
      {
        name: ['IndieWebCamp'],
        start: ['2026-12-05T09:00:00Z'],
        end: ['2026-12-06T17:00:00Z'],
        location: ['Town hall'],
        summary: ['Two days of building our own websites.'],
      },
      { type: ['h-event'] },
    );
    goneUrl = await t.create({ name: ['Deleted later'] });
    await postJson(t.app, token, { action: 'delete', url: goneUrl });
    const face = (name: string, site: string) => ({ name, url: `https://${site}/`, photo });
    await seedMention(t, entryUrl, {
      source: 'https://carol.example/reply',
      type: 'reply',
      author: face('Carol', 'carol.example'),
      contentHtml: '<p>Lovely walk! <a href="https://carol.example/rivers">Mine was colder</a>.</p><script>alert(1)</script>',
    });
    await seedMention(t, entryUrl, { source: 'https://dan.example/like', type: 'like', author: face('Dan', 'dan.example') });
    await seedMention(t, entryUrl, {
      source: 'https://erin.example/like',
      type: 'like',
      author: { name: 'Erin', url: 'https://erin.example/', photo: null },
    });
    await seedMention(t, entryUrl, { source: 'https://fay.example/repost', type: 'repost', author: face('Fay', 'fay.example') });
    await seedMention(t, entryUrl, {
      source: 'https://gus.example/links',
      type: 'bookmark',
      author: { name: 'Gus', url: 'https://gus.example/', photo: null },
    });
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A page in a context of this size and color scheme; collects console errors (CSP violations included). */
  async function open(width: number, colorScheme: 'light' | 'dark'): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      // the 410 of the tombstone page is the answer asked for, not a failed subresource
      if (/status of 410/.test(message.text()) && message.location().url === page.url()) return;
      errors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => errors.push(error.message));
    return { context, page, errors };
  }

  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [390, 1280]) {
      it(`shows the entry, its responses and the home page at ${width} px, ${colorScheme}: no console error, no serious axe violation`, async () => {
        const { context, page, errors } = await open(width, colorScheme);
        try {
          const response = await page.goto(entryUrl);
          expect(response?.status()).toBe(200);
          await expect(page.locator('h1').first().textContent()).resolves.toBe('A walk by the river');
          await expect(page.locator('.responses .faces img[alt="Dan"]').count()).resolves.toBe(1);
          await expect(page.locator('.replies .e-content').textContent()).resolves.toContain('Lovely walk!');
          await expect(page.locator('script').count()).resolves.toBe(0);
          // the stylesheet applied: the page background follows the color scheme
          const background = await page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
          expect(background).toBe(colorScheme === 'dark' ? 'rgb(18, 18, 20)' : 'rgb(253, 253, 252)');
          // nothing wider than the viewport
          await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(width);
          await screenshot(page, `entry-${colorScheme}-${width}`);
          expect(await seriousViolations(page)).toEqual([]);

          await page.goto(`${base}/alice/`);
          await expect(page.locator('.h-card .p-name').first().textContent()).resolves.toBe('Alice Example');
          await expect(page.locator('.h-feed .feed-item').count()).resolves.toBe(3);
          await expect(page.evaluate('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(width);
          await screenshot(page, `entry-home-${colorScheme}-${width}`);
          expect(await seriousViolations(page)).toEqual([]);
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }

  it('shows the tombstone of a deleted entry (410) in both color schemes', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page, errors } = await open(390, colorScheme);
      try {
        const response = await page.goto(goneUrl);
        expect(response?.status()).toBe(410);
        await expect(page.locator('h1').textContent()).resolves.toBe('This post was deleted');
        await screenshot(page, `entry-gone-${colorScheme}-390`);
        expect(await seriousViolations(page)).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});
