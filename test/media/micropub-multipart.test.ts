/**
 * Micropub multipart create: photo file parts go through the media pipeline
 * (create scope, not media), their URLs come after submitted photo URLs, and
 * a create that fails leaves no stored file.
 * @see SPEC.md "POST create" (Multipart), "Scope enforcement"
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BACKENDS,
  FILES,
  INVALID_REQUEST,
  keyOf,
  type MediaApp,
  MICROPUB,
  type PartSpec,
  postMultipart,
  randomPng,
  type S3Fixture,
  standaloneMediaApp,
  startS3,
} from '../helpers/media.js';

let s3: S3Fixture;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.close();
});

function photo(content: Uint8Array = randomPng(), filename = 'photo.png', type = 'image/png'): PartSpec {
  return { name: 'photo', filename, type, content };
}

describe.each(BACKENDS)('POST /indieweb/micropub/ multipart create (%s storage)', (backend) => {
  let t: MediaApp;
  let reader: string;
  beforeAll(async () => {
    t = await standaloneMediaApp(backend, s3);
    reader = await t.token('update');
  });
  afterAll(async () => {
    await t.close();
  });

  async function source(url: string): Promise<{ type: string[]; properties: Record<string, unknown[]> }> {
    const response = await t.app.inject({
      method: 'GET',
      url: `${MICROPUB}?q=source&url=${encodeURIComponent(url)}`,
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  }

  async function entries(): Promise<number> {
    const response = await t.app.inject({ method: 'GET', url: `${MICROPUB}?q=source`, headers: { authorization: `Bearer ${reader}` } });
    return (response.json() as { items: unknown[] }).items.length;
  }

  async function fetchStored(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
    if (backend === 'local') {
      const response = await t.app.inject({ method: 'GET', url: new URL(url).pathname });
      return {
        status: response.statusCode,
        type: (response.headers['content-type'] as string | undefined) ?? null,
        bytes: response.rawPayload,
      };
    }
    const response = await fetch(url);
    return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
  }

  it('201 with Location; the photo file is stored through the media pipeline and its absolute URL is the photo value', async () => {
    const content = randomPng(5000);
    const response = await postMultipart(
      t.app,
      await t.token('create'),
      [{ name: 'h', value: 'entry' }, { name: 'content', value: 'hello' }, photo(content)],
      MICROPUB,
    );
    expect(response.statusCode).toBe(201);
    const entry = await source(response.headers.location as string);
    expect(entry.properties.content).toEqual(['hello']);
    const photos = entry.properties.photo as string[];
    expect(photos).toHaveLength(1);
    expect(keyOf(photos[0]!)).toMatch(/^indieweb\/media\/[A-Za-z0-9_-]{16,}\.png$/);
    expect(await t.stored()).toContain(keyOf(photos[0]!));
    const stored = await fetchStored(photos[0]!);
    expect(stored.status).toBe(200);
    expect(stored.type).toBe('image/png');
    expect(stored.bytes.equals(content)).toBe(true);
  });

  it('201 with the legacy scope post', async () => {
    const response = await postMultipart(t.app, await t.token('post'), [{ name: 'h', value: 'entry' }, photo()], MICROPUB);
    expect(response.statusCode).toBe(201);
  });

  it('201 with stored URLs appended after an existing photo URL value (q=source shows [url, stored])', async () => {
    const response = await postMultipart(
      t.app,
      await t.token('create'),
      [{ name: 'h', value: 'entry' }, { name: 'photo', value: 'https://example.com/a.jpg' }, photo()],
      MICROPUB,
    );
    expect(response.statusCode).toBe(201);
    const photos = (await source(response.headers.location as string)).properties.photo as string[];
    expect(photos).toHaveLength(2);
    expect(photos[0]).toBe('https://example.com/a.jpg');
    expect(await t.stored()).toContain(keyOf(photos[1]!));
  });

  it('201 with stored URLs after the photo URL values even when the file part comes first', async () => {
    const response = await postMultipart(
      t.app,
      await t.token('create'),
      [
        photo(randomPng(), 'one.png'),
        { name: 'h', value: 'entry' },
        { name: 'photo[]', value: 'https://example.com/a.jpg' },
        photo(FILES.jpeg, 'two.jpg', 'image/jpeg'),
        { name: 'photo[]', value: 'https://example.com/b.jpg' },
      ],
      MICROPUB,
    );
    expect(response.statusCode).toBe(201);
    const photos = (await source(response.headers.location as string)).properties.photo as string[];
    expect(photos).toHaveLength(4);
    expect(photos.slice(0, 2)).toEqual(['https://example.com/a.jpg', 'https://example.com/b.jpg']);
    expect(photos[2]).toMatch(/\.png$/);
    expect(photos[3]).toMatch(/\.jpg$/);
  });

  it('403 authorization error for a token with media but not create scope, and nothing is stored', async () => {
    const rows = await t.rows();
    const stored = await t.stored();
    const before = await entries();
    const response = await postMultipart(t.app, await t.token('media'), [{ name: 'h', value: 'entry' }, photo()], MICROPUB);
    expect(response.statusCode).toBe(403);
    expect(response.body).toBe('authorization error');
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
    expect(await entries()).toBe(before);
  });

  it('401 authentication error without a token, and nothing is stored', async () => {
    const rows = await t.rows();
    const response = await postMultipart(t.app, null, [{ name: 'h', value: 'entry' }, photo()], MICROPUB);
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('authentication error');
    expect(await t.rows()).toBe(rows);
  });

  it.each([
    ['HTML renamed .png', FILES.html, 'page.png', 'image/png'],
    ['SVG', FILES.svg, 'logo.svg', 'image/svg+xml'],
    ['shell.php.jpg with JPEG bytes', FILES.jpeg, 'shell.php.jpg', 'image/jpeg'],
    ['a PNG declared image/jpeg', FILES.png, 'x.png', 'image/jpeg'],
    ['a PDF', FILES.pdf, 'paper.pdf', 'application/pdf'],
  ])('415 invalid_request for a photo file that is %s, with no entry and nothing stored', async (_label, content, filename, type) => {
    const rows = await t.rows();
    const stored = await t.stored();
    const before = await entries();
    const response = await postMultipart(
      t.app,
      await t.token('create'),
      [{ name: 'h', value: 'entry' }, photo(randomPng(), 'good.png'), photo(content, filename, type)],
      MICROPUB,
    );
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await entries()).toBe(before);
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it.each<[string, PartSpec[]]>([
    ['a uid field after the file', [{ name: 'uid', value: 'x' }]],
    ['a uid[] field after the file', [{ name: 'uid[]', value: 'x' }]],
    ['an author field after the file', [{ name: 'author', value: 'https://evil.example/' }]],
    ['a javascript: photo URL after the file', [{ name: 'photo', value: 'javascript:alert(1)' }]],
    ['a relative in-reply-to after the file', [{ name: 'in-reply-to', value: '/post/1' }]],
  ])('400 invalid_request for a create rejected after upload (%s), and no stored file, row or entry is left', async (_label, extra) => {
    const rows = await t.rows();
    const stored = await t.stored();
    const before = await entries();
    const response = await postMultipart(
      t.app,
      await t.token('create'),
      [{ name: 'h', value: 'entry' }, photo(randomPng(), 'a.png'), photo(randomPng(), 'b.png'), ...extra],
      MICROPUB,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(INVALID_REQUEST);
    expect(await entries()).toBe(before);
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it('400 invalid_request for a Micropub action that carries a file, and nothing is stored', async () => {
    const rows = await t.rows();
    const stored = await t.stored();
    const response = await postMultipart(
      t.app,
      await t.token('create delete'),
      [{ name: 'action', value: 'delete' }, { name: 'url', value: 'http://indiestack.test/indieweb/entries/x' }, photo()],
      MICROPUB,
    );
    expect(response.statusCode).toBe(400);
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it('400 invalid_request for an action whose file part comes before the action field, and nothing is stored', async () => {
    const rows = await t.rows();
    const stored = await t.stored();
    const response = await postMultipart(
      t.app,
      await t.token('create delete'),
      [photo(), { name: 'action', value: 'delete' }, { name: 'url', value: 'http://indiestack.test/indieweb/entries/x' }],
      MICROPUB,
    );
    expect(response.statusCode).toBe(400);
    expect(await t.rows()).toBe(rows);
    expect(await t.stored()).toEqual(stored);
  });

  it('multipart without files carries actions like a form: 204 delete, 204 undelete, each with its own scope', async () => {
    const created = await postMultipart(
      t.app,
      await t.token('create'),
      [
        { name: 'h', value: 'entry' },
        { name: 'content', value: 'to be deleted' },
      ],
      MICROPUB,
    );
    expect(created.statusCode).toBe(201);
    const url = created.headers.location as string;
    const action = (name: string, token: string) =>
      postMultipart(
        t.app,
        token,
        [
          { name: 'action', value: name },
          { name: 'url', value: url },
        ],
        MICROPUB,
      );

    const noScope = await action('delete', await t.token('create undelete'));
    expect(noScope.statusCode).toBe(403);
    expect(noScope.body).toBe('authorization error');
    expect((await action('delete', await t.token('delete'))).statusCode).toBe(204);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `${MICROPUB}?q=source&url=${encodeURIComponent(url)}`,
          headers: { authorization: `Bearer ${reader}` },
        })
      ).statusCode,
    ).toBe(400);
    expect((await action('undelete', await t.token('undelete'))).statusCode).toBe(204);
    expect((await source(url)).properties.content).toEqual(['to be deleted']);
  });

  it('400 invalid_request for an update sent as multipart (update is JSON only); 400 for an unknown action; 401 without a token', async () => {
    const url = 'http://indiestack.test/indieweb/entries/x';
    const update = await postMultipart(
      t.app,
      await t.token('update'),
      [
        { name: 'action', value: 'update' },
        { name: 'url', value: url },
        { name: 'replace[content]', value: 'x' },
      ],
      MICROPUB,
    );
    expect(update.statusCode).toBe(400);
    expect(update.json()).toEqual(INVALID_REQUEST);
    const unknown = await postMultipart(
      t.app,
      await t.token('delete'),
      [
        { name: 'action', value: 'explode' },
        { name: 'url', value: url },
      ],
      MICROPUB,
    );
    expect(unknown.statusCode).toBe(400);
    const anonymous = await postMultipart(
      t.app,
      null,
      [
        { name: 'action', value: 'delete' },
        { name: 'url', value: url },
      ],
      MICROPUB,
    );
    expect(anonymous.statusCode).toBe(401);
  });
});
