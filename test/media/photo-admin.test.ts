/**
 * The admin Media page shows a photo of ours through its small sized copies
 * (issue 32 item 5), and uploads from its form are stripped like any other.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CookieJar } from '../helpers/app.js';
import { ADMIN, addUser, buildAdminApp, csrfOf, getAdmin, type AdminTestApp } from '../helpers/admin.js';
import { multipart } from '../helpers/media.js';
import { phonePhoto, SECRET_SERIAL } from '../helpers/photos.js';

describe('the admin Media page and photos', () => {
  let t: AdminTestApp;
  let jar: CookieJar;
  beforeAll(async () => {
    t = await buildAdminApp({});
    jar = (await addUser(t, 'alice')).jar;
  });
  afterAll(async () => t?.close());

  it('an upload from the form loses its metadata, and the list shows a srcset of its copies with alt present', async () => {
    const csrf = csrfOf(await getAdmin(t, jar, '/media/'));
    const { body, contentType } = multipart([
      { name: '_csrf', value: csrf },
      { name: 'file', filename: 'phone.jpg', type: 'image/jpeg', content: await phonePhoto() },
    ]);
    const response = await t.app.inject({
      method: 'POST',
      url: `${ADMIN}/media/upload`,
      headers: { cookie: jar.header(), 'content-type': contentType },
      payload: body,
    });
    jar.storeFrom(response);
    expect(response.statusCode).toBe(303);
    const [file] = await t.app.indieweb.media.repository.listByUser((await t.app.indieweb.users!.findByName('alice'))!.id);
    const served = await t.app.inject({ method: 'GET', url: new URL(file!.url).pathname });
    expect(served.rawPayload.includes(SECRET_SERIAL)).toBe(false);
    expect((await sharp(served.rawPayload).metadata()).exif).toBeUndefined();

    const page = await getAdmin(t, jar, '/media/');
    expect(page.body).toContain(
      `<img src="${file!.url}" srcset="${file!.url}?w=320 320w, ${file!.url}?w=640 640w" sizes="12rem" alt="" loading="lazy">`,
    );
    const copy = await t.app.inject({ method: 'GET', url: `${new URL(file!.url).pathname}?w=320`, headers: { accept: 'image/webp' } });
    expect(copy.statusCode).toBe(200);
    expect(copy.headers['content-type']).toBe('image/webp');
  });
});
