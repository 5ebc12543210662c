/**
 * Entry pages use the sized copies (issue 32 item 5): a photo of ours gets a
 * srcset of `?w=N` copies, its alt text, and is never shown wider than its
 * pixels (issue 30 item 12: small photos were stretched to the column).
 */
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, HAS_CHROMIUM, launchBrowser } from '../helpers/browser.js';
import { entriesApp, parsePage, pathOf, type EntriesTestApp, type Mf2Item } from '../helpers/entries.js';
import { filePart, multipart } from '../helpers/media.js';
import { freePort } from '../helpers/net.js';
import { phonePhoto } from '../helpers/photos.js';

if (!HAS_CHROMIUM) console.warn(`browser checks skipped: no Chromium at ${CHROMIUM}`);

async function uploadPhoto(t: EntriesTestApp, content: Buffer): Promise<string> {
  const { body, contentType } = multipart([filePart(content, 'photo.jpg', 'image/jpeg')]);
  const response = await t.app.inject({
    method: 'POST',
    url: '/indieweb/media/',
    headers: { authorization: `Bearer ${await t.token()}`, 'content-type': contentType },
    payload: body,
  });
  if (response.statusCode !== 201) throw new Error(`upload answered ${response.statusCode}: ${response.body}`);
  return response.headers.location as string;
}

describe('photos on entry pages', () => {
  let t: EntriesTestApp;
  let base: string;
  let small: string;
  let large: string;
  let entryUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await entriesApp({ env: { INDIEWEB_BASE_URL: base } });
    small = await uploadPhoto(
      t,
      await sharp({ create: { width: 200, height: 150, channels: 3, background: '#2a7' } })
        .jpeg()
        .toBuffer(),
    );
    large = await uploadPhoto(t, await phonePhoto(1500, 2000));
    entryUrl = await t.create({
      name: ['Two photos'],
      photo: [{ value: small, alt: 'A small green square' }, large, 'https://elsewhere.example/x.jpg'],
    });
    await t.app.listen({ host: '127.0.0.1', port });
  });
  afterAll(async () => t?.close());

  it('our photos get a srcset of the sized copies and sizes; src and the parsed u-photo stay the original; alt is always there', async () => {
    const response = await t.get(pathOf(entryUrl));
    expect(response.statusCode).toBe(200);
    const images = [...response.body.matchAll(/<img class="u-photo"[^>]*>/g)].map((match) => match[0]);
    expect(images).toHaveLength(3);
    for (const image of images) expect(image).toMatch(/ alt="[^"]*"/);
    expect(images[0]).toContain(`src="${small}"`);
    expect(images[0]).toContain(`srcset="${small}?w=320 320w, ${small}?w=640 640w, ${small}?w=1280 1280w, ${small}?w=2048 2048w"`);
    expect(images[0]).toMatch(/ sizes="[^"]+"/);
    expect(images[0]).toContain('alt="A small green square"');
    expect(images[1]).toContain(`srcset="${large}?w=320 320w`);
    expect(images[1]).toContain('alt=""');
    // another site's photo has no copies of ours
    expect(images[2]).not.toContain('srcset');
    const entry = parsePage(response.body).items.find((item: Mf2Item) => item.type.includes('h-entry'))!;
    const photos = (entry.properties.photo ?? []).map((value) =>
      typeof value === 'object' && value !== null && 'value' in value ? (value as { value: string }).value : value,
    );
    expect(photos).toEqual([small, large, 'https://elsewhere.example/x.jpg']);
  });

  describe.skipIf(!HAS_CHROMIUM)('in a real browser', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => browser?.close());

    it.each([390, 1280])('at %i px wide: a phone-sized copy is loaded, and no photo is shown wider than its pixels', async (width) => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await page.goto(new URL(pathOf(entryUrl), base).href);
      const photos = page.locator('img.u-photo');
      await photos.first().scrollIntoViewIfNeeded();
      const shown: { current: string; rendered: number }[] = [];
      for (const index of [0, 1]) {
        const photo = photos.nth(index);
        await photo.scrollIntoViewIfNeeded();
        await expect
          .poll(() => photo.evaluate((image: { complete: boolean; naturalWidth: number }) => image.complete && image.naturalWidth > 0))
          .toBe(true);
        shown.push(
          await photo.evaluate((image: { currentSrc: string; getBoundingClientRect(): { width: number } }) => ({
            current: image.currentSrc,
            rendered: image.getBoundingClientRect().width,
          })),
        );
      }
      expect(shown[0]!.current).toMatch(/\?w=\d+$/);
      // the small photo has 200 pixels: never stretched beyond them
      expect(shown[0]!.rendered).toBeLessThanOrEqual(200);
      // the large one (1500 wide upright) fits the column and comes as a copy, not the original
      expect(shown[1]!.current).toMatch(/\?w=(320|640|1280|2048)$/);
      expect(shown[1]!.rendered).toBeLessThanOrEqual(width);
      await context.close();
    });
  });
});
