import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { addAlice, CLIENT_ID, formBody, ME, obtainCode, postToken, REDIRECT_URI } from '../helpers/indieauth.js';
import {
  INVALID_REQUEST,
  entryUrl,
  entryUrlPrefix,
  TEST_DIALECT,
  TEST_HANDLER_ENV,
  micropubGet,
  postForm,
  postJson,
  standaloneApp,
  type MicropubTestApp,
} from '../helpers/micropub.js';

interface PostTypeCase {
  readonly type: string[];
  /** Sent form-encoded when every value is a plain string, else as JSON. */
  readonly via: 'form' | 'json';
  readonly properties: Record<string, unknown[]>;
  readonly replace: Record<string, unknown[]>;
}

const POST_TYPES: Record<string, PostTypeCase> = {
  note: {
    type: ['h-entry'],
    via: 'form',
    properties: { content: ['Just a note, with a comma'] },
    replace: { content: ['An edited note'] },
  },
  article: {
    type: ['h-entry'],
    via: 'json',
    properties: { name: ['An article'], content: [{ html: '<p>Body <b>text</b></p>', value: 'Body text' }] },
    replace: { name: ['A better title'] },
  },
  photo: {
    type: ['h-entry'],
    via: 'json',
    properties: { photo: [{ value: 'https://media.example/cat.jpg', alt: 'A cat' }], content: ['My cat'], category: ['cats', 'pets'] },
    replace: { content: ['My cat, asleep'] },
  },
  audio: {
    type: ['h-entry'],
    via: 'form',
    properties: { audio: ['https://media.example/song.mp3'], content: ['A song'], category: ['music'] },
    replace: { audio: ['https://media.example/song-remastered.mp3'] },
  },
  video: {
    type: ['h-entry'],
    via: 'form',
    properties: { video: ['https://media.example/clip.mp4'], content: ['A clip'], category: ['video'] },
    replace: { category: ['film', 'clips'] },
  },
  reply: {
    type: ['h-entry'],
    via: 'form',
    properties: { 'in-reply-to': ['https://someone.example/post/1'], content: ['I agree'] },
    replace: { content: ['I agree, mostly'] },
  },
  bookmark: {
    type: ['h-entry'],
    via: 'form',
    properties: { 'bookmark-of': ['https://read-later.example/article'], name: ['Worth reading'], content: ['Long but good'] },
    replace: { name: ['Must read'] },
  },
  like: {
    type: ['h-entry'],
    via: 'form',
    properties: { 'like-of': ['https://someone.example/post/2'] },
    replace: { 'like-of': ['https://someone.example/post/3'] },
  },
  repost: {
    type: ['h-entry'],
    via: 'json',
    properties: { 'repost-of': [{ type: ['h-cite'], properties: { url: ['https://someone.example/post/4'], name: ['A post'] } }] },
    replace: { 'repost-of': ['https://someone.example/post/5'] },
  },
  event: {
    type: ['h-event'],
    via: 'form',
    properties: {
      name: ['IndieWebCamp'],
      summary: ['Two days of building'],
      description: ['Bring a laptop'],
      start: ['2026-05-01T09:00:00+02:00'],
      end: ['2026-05-02T18:00:00+02:00'],
      location: ['geo:52.52,13.40'],
      category: ['indieweb'],
      url: ['https://events.example/iwc'],
      published: ['2026-04-01T10:00:00Z'],
    },
    replace: { start: ['2026-05-01T10:00:00+02:00'] },
  },
  rsvp: {
    type: ['h-entry'],
    via: 'form',
    properties: { rsvp: ['yes'], 'in-reply-to': ['https://events.example/iwc'], name: ['Going'], content: ['See you there'] },
    replace: { rsvp: ['no'] },
  },
};

/** The form fields of a create: `h`, then each property (several values as `name[]`). */
function formFields(type: readonly string[], properties: Record<string, unknown[]>): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = { h: type[0]!.replace(/^h-/, '') };
  for (const [name, values] of Object.entries(properties)) {
    if (values.length === 1) fields[name] = values[0] as string;
    else fields[`${name}[]`] = values as string[];
  }
  return fields;
}

describe('POST /indieweb/micropub/ round trip of each built-in post type', () => {
  let t: MicropubTestApp;
  let token: string;
  beforeAll(async () => {
    t = await standaloneApp();
    token = await t.token('create update delete undelete');
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 q=post-types lists exactly the eleven round-tripped types', async () => {
    const config = (await micropubGet(t.app, token, { q: 'post-types' })).json() as { 'post-types': { type: string }[] };
    expect(config['post-types'].map((postType) => postType.type).sort()).toEqual(Object.keys(POST_TYPES).sort());
  });

  it.each(Object.entries(POST_TYPES))(
    '201 create, 200 source, 204 update, 204 delete, 400 source, 204 undelete, 200 source for a %s',
    async (name, postType) => {
      const properties = { ...postType.properties, 'mp-slug': [`round-trip-${name}`] };
      const created =
        postType.via === 'form'
          ? await postForm(t.app, token, formFields(postType.type, properties))
          : await postJson(t.app, token, { type: postType.type, properties });
      expect(created.statusCode).toBe(201);
      const url = created.headers.location as string;
      // an entry that says when it was published lives in that month (database handler)
      const published = (properties as Record<string, unknown[]>).published?.[0];
      expect(url).toBe(entryUrl(`round-trip-${name}`, typeof published === 'string' ? new Date(published) : undefined));

      const source = async () => micropubGet(t.app, token, { q: 'source', url });
      expect((await source()).json()).toEqual({ type: postType.type, properties });

      const wanted = Object.keys(postType.properties);
      const partial = await micropubGet(t.app, token, { q: 'source', url, 'properties[]': [...wanted, 'not-there'] });
      expect(partial.json()).toEqual({ properties: postType.properties });

      const updated = await postJson(t.app, token, { action: 'update', url, replace: postType.replace });
      expect(updated.statusCode).toBe(204);
      const afterUpdate = { type: postType.type, properties: { ...properties, ...postType.replace } };
      expect((await source()).json()).toEqual(afterUpdate);

      expect((await postForm(t.app, token, { action: 'delete', url })).statusCode).toBe(204);
      const gone = await source();
      expect(gone.statusCode).toBe(400);
      expect(gone.json()).toEqual(INVALID_REQUEST);
      const listed = (await micropubGet(t.app, token, { q: 'source', filter: `round-trip-${name}"` })).json() as { items: unknown[] };
      expect(listed.items).toEqual([]);

      expect((await postJson(t.app, token, { action: 'undelete', url })).statusCode).toBe(204);
      const back = await source();
      expect(back.statusCode).toBe(200);
      expect(back.json()).toEqual(afterUpdate);
    },
  );
});

describe('/indieweb/micropub/ with a token from the IndieAuth endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ dialect: TEST_DIALECT, env: { ...TEST_HANDLER_ENV } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('201 creates a post and 200 reads its source with a token obtained through auth and token endpoints', async () => {
    const jar = await addAlice(t);
    const code = await obtainCode(t, jar, { scope: 'create update' });
    const exchanged = await postToken(t, { grant_type: 'authorization_code', code, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI });
    expect(exchanged.statusCode).toBe(201);
    const issued = formBody(exchanged);
    expect(issued).toMatchObject({ scope: 'create update', me: ME });
    const token = issued.access_token!;

    const me = await micropubGet(t.app, token);
    expect(Object.fromEntries(new URLSearchParams(me.body))).toEqual({ me: ME });

    const created = await postForm(t.app, token, {
      h: 'entry',
      content: 'Hello from a real client',
      'category[]': ['indieauth', 'micropub'],
    });
    expect(created.statusCode).toBe(201);
    const url = created.headers.location as string;
    expect(url.startsWith(entryUrlPrefix())).toBe(true);

    const source = await micropubGet(t.app, token, { q: 'source', url });
    expect(source.statusCode).toBe(200);
    expect(source.json()).toEqual({
      type: ['h-entry'],
      properties: { content: ['Hello from a real client'], category: ['indieauth', 'micropub'] },
    });

    const update = await postJson(t.app, token, { action: 'update', url, add: { category: ['indieweb'] } });
    expect(update.statusCode).toBe(204);

    // the token was granted create and update only
    const del = await postForm(t.app, token, { action: 'delete', url });
    expect(del.statusCode).toBe(403);
    expect(del.body).toBe('authorization error');
  });
});
