import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostUser } from '../../src/contracts/accounts.js';
import type { CookieJar } from '../helpers/app.js';
import { ADMIN, addUser, buildAdminApp, csrfOf, getAdmin, PNG_1X1, snapshot, type AdminTestApp } from '../helpers/admin.js';

const SITE = 'http://indiestack.test';

type Part = { name: string; value: string } | { name: string; filename: string; type: string; content: Uint8Array };

function multipart(parts: readonly Part[]): { body: Buffer; contentType: string } {
  const boundary = `----indiestack-upload-${randomBytes(8).toString('hex')}`;
  const chunks = parts.map((part) =>
    'value' in part
      ? Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`)
      : Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}\r\n\r\n`,
          ),
          Buffer.from(part.content),
          Buffer.from('\r\n'),
        ]),
  );
  return { body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}

const png = (filename = 'dot.png'): Part => ({ name: 'file', filename, type: 'image/png', content: PNG_1X1 });

describe('POST /indieweb/admin/media/upload (the Media page upload form)', () => {
  let t: AdminTestApp;
  let alice: { user: HostUser; jar: CookieJar };
  let bob: { user: HostUser; jar: CookieJar };

  beforeAll(async () => {
    t = await buildAdminApp({ INDIEWEB_MEDIA_MAX_UPLOAD_BYTES: '2048' });
    alice = await addUser(t, 'alice');
    bob = await addUser(t, 'bob');
  });
  afterAll(async () => {
    await t?.close();
  });

  async function upload(jar: CookieJar, parts: readonly Part[]): Promise<LightMyRequestResponse> {
    const { body, contentType } = multipart(parts);
    const response = await t.app.inject({
      method: 'POST',
      url: `${ADMIN}/media/upload`,
      headers: { cookie: jar.header(), 'content-type': contentType },
      payload: body,
    });
    jar.storeFrom(response);
    return response;
  }

  const tokenOf = async (jar: CookieJar) => csrfOf(await getAdmin(t, jar, '/media/'));

  it('shows the form: multipart, its CSRF field first, a required file input tied to its hint', async () => {
    const page = await getAdmin(t, alice.jar, '/media/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(
      /<form method="post" action="\/indieweb\/admin\/media\/upload" enctype="multipart\/form-data">\s*<input type="hidden" name="_csrf" value="[^"]+">/,
    );
    expect(page.body).toContain('<input type="file" id="media-file" name="file" required aria-describedby="media-file-hint">');
    expect(page.body).toContain('Up to 2 KiB.');
  });

  it('303 to the Media page with a notice; the file is listed, served and owned by the signed-in user', async () => {
    const response = await upload(alice.jar, [{ name: '_csrf', value: await tokenOf(alice.jar) }, png('first.png')]);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`${SITE}${ADMIN}/media/?done=uploaded`);
    const page = await getAdmin(t, alice.jar, '/media/?done=uploaded');
    expect(page.body).toContain('<p class="notice" role="status">Uploaded: the file is first in the list below.</p>');
    expect(page.body).toContain('first.png · image/png · 70 bytes');
    const [file] = await t.app.indieweb.media.repository.listByUser(alice.user.id);
    expect(file).toMatchObject({ name: 'first.png', mediaType: 'image/png', size: PNG_1X1.length });
    const served = await t.app.inject({ method: 'GET', url: new URL(file!.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(PNG_1X1)).toBe(true);
    expect((await getAdmin(t, bob.jar, '/media/')).body).not.toContain('first.png');
  });

  it('303 also when the token comes after the file (the file waits aside until the form is checked)', async () => {
    const response = await upload(alice.jar, [png('late-token.png'), { name: '_csrf', value: await tokenOf(alice.jar) }]);
    expect(response.statusCode).toBe(303);
    expect((await t.app.indieweb.media.repository.listByUser(alice.user.id)).map((file) => file.name)).toContain('late-token.png');
  });

  it.each([
    ['no token', [] as Part[]],
    ['a forged token', [{ name: '_csrf', value: 'forged' }]],
  ])('403 with %s: the page says the form expired and nothing is stored', async (_label, fields) => {
    const before = await snapshot(t);
    const response = await upload(alice.jar, [...fields, png('forged.png')]);
    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('The form expired or did not come from this site.');
    expect(await snapshot(t)).toEqual(before);
  });

  it("403 for another user's token: nothing stored for either", async () => {
    const before = await snapshot(t);
    const response = await upload(alice.jar, [{ name: '_csrf', value: await tokenOf(bob.jar) }, png('cross.png')]);
    expect(response.statusCode).toBe(403);
    expect(await snapshot(t)).toEqual(before);
  });

  it.each([
    [
      '415 for a page in disguise',
      415,
      { name: 'file', filename: 'evil.png', type: 'image/png', content: Buffer.from('<!doctype html><script>alert(1)</script>') },
      'Not uploaded: ',
    ],
    [
      '413 for a file over the limit',
      413,
      { name: 'file', filename: 'big.png', type: 'image/png', content: Buffer.concat([PNG_1X1, Buffer.alloc(4096)]) },
      'Not uploaded: file too large.',
    ],
  ] as const)('%s: the reason is shown by the file field and tied to it, nothing stored', async (_label, status, part, message) => {
    const before = await snapshot(t);
    const response = await upload(alice.jar, [{ name: '_csrf', value: await tokenOf(alice.jar) }, part]);
    expect(response.statusCode).toBe(status);
    expect(response.body).toContain(
      '<input type="file" id="media-file" name="file" required aria-invalid="true" aria-describedby="media-file-hint media-file-error">',
    );
    expect(response.body).toContain(`<span class="error" id="media-file-error" role="alert">${message}`);
    expect(response.body).not.toMatch(/<script/i);
    expect(await snapshot(t)).toEqual(before);
  });

  it('400 for a form without a file, or with two; nothing stored', async () => {
    const before = await snapshot(t);
    const none = await upload(alice.jar, [{ name: '_csrf', value: await tokenOf(alice.jar) }]);
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Not uploaded: no file was chosen.');
    const two = await upload(alice.jar, [{ name: '_csrf', value: await tokenOf(alice.jar) }, png('one.png'), png('two.png')]);
    expect(two.statusCode).toBe(400);
    expect(two.body).toContain('Not uploaded: choose one file at a time.');
    expect(await snapshot(t)).toEqual(before);
  });

  it('400 for a body that is not multipart; 303 to sign in without a session', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: `${ADMIN}/media/upload`,
      headers: { cookie: alice.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${await tokenOf(alice.jar)}`,
    });
    expect(form.statusCode).toBe(400);
    expect(form.body).toContain('Not uploaded: the form was not sent as multipart/form-data.');
    const { body, contentType } = multipart([png()]);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: `${ADMIN}/media/upload`,
      headers: { 'content-type': contentType },
      payload: body,
    });
    expect(anonymous.statusCode).toBe(303);
  });
});
