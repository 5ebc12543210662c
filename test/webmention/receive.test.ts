import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.js';
import { createManualClock } from '../../src/core/clock.js';
import { indieweb } from '../../src/app/plugin.js';
import { createJobsRepository } from '../../src/storage/repositories/jobs.js';
import type { WebmentionReceivedEvent } from '../../src/webmention/events.js';
import { VERIFY_JOB } from '../../src/webmention/service.js';
import { buildTestApp, TEST_SECRET, type TestApp } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { addAlice } from '../helpers/indieauth.js';
import { accepted, SITE, statusOf, submit } from '../helpers/webmention.js';

const SOURCE = 'https://them.example/notes/1';
const TARGET = `${SITE}/post`;

describe('POST /indieweb/webmention/', () => {
  let t: TestApp;
  const events: WebmentionReceivedEvent[] = [];
  const count = async () => (await t.app.indieweb.webmention.list()).total;

  beforeAll(async () => {
    t = await buildTestApp();
    await addAlice(t, { me: ['https://alice.example/'] });
    t.app.indieweb.events.on('webmention_received', (event) => events.push(event));
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    events.length = 0;
  });

  it('201 with a Location of an unguessable status URL, and the record starts pending', async () => {
    const result = await submit(t, SOURCE, TARGET);
    expect(result.statusCode).toBe(201);
    expect(result.location).toMatch(/^http:\/\/indiestack\.test\/indieweb\/webmention\/[A-Za-z0-9_-]{20,}$/);
    expect(result.response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(result.response.body).toContain(result.location);
    expect(await statusOf(t, result.id)).toEqual({
      status: 'pending',
      source: SOURCE,
      target: TARGET,
      verified_at: null,
      type: null,
      author: { name: null, url: null, photo: null },
      content: null,
    });
    const job = await createJobsRepository(t.database.db, t.database.dialect).findByRef(VERIFY_JOB, result.id);
    expect(job).toMatchObject({ ref: result.id, attempts: 0 });
  });

  it('201 keeps the submitted URLs exactly as sent', async () => {
    const source = 'HTTPS://Them.Example/Notes/2/?b=2&a=1#frag';
    const target = 'http://WWW.IndieStack.test/Post/?b=2&a=1#x';
    const { id } = await submit(t, source, target);
    const status = await statusOf(t, id);
    expect(status.source).toBe(source);
    expect(status.target).toBe(target);
  });

  it('201 for another pair gives another record and another status URL', async () => {
    const first = await submit(t, 'https://them.example/notes/3', TARGET);
    const second = await submit(t, 'https://them.example/notes/4', TARGET);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.location).not.toBe(first.location);
  });

  it('201 re-sending the same pair updates the one record: same id, same Location', async () => {
    const before = await count();
    const first = await submit(t, 'https://them.example/notes/5', TARGET);
    const again = await submit(t, 'https://them.example/notes/5', TARGET);
    expect(again.statusCode).toBe(201);
    expect(again.location).toBe(first.location);
    expect(await count()).toBe(before + 1);
  });

  it.each([
    ['the base URL host', 'http://indiestack.test/notes/a'],
    ['the base URL host with www.', 'https://www.indiestack.test/notes/a'],
    ['the base URL host in upper case', 'http://INDIESTACK.TEST/notes/a'],
    ["an account's profile URL host", 'https://alice.example/2026/01/hello'],
    ["an account's profile URL host with www.", 'https://www.alice.example/hello'],
  ])('201 for a target on %s', async (_label, target) => {
    expect((await submit(t, 'https://them.example/notes/6', target)).statusCode).toBe(201);
  });

  it.each([
    ['source is missing', undefined, TARGET],
    ['target is missing', SOURCE, undefined],
    ['both are missing', undefined, undefined],
    ['source is empty', '', TARGET],
    ['target is empty', SOURCE, ''],
    ['source is not a URL', 'not a url', TARGET],
    ['source is relative', '/notes/1', TARGET],
    ['target has no scheme', SOURCE, 'indiestack.test/post'],
    ['source has a space inside', 'https://them.example/a b', TARGET],
    ['source is ftp:', 'ftp://them.example/notes/1', TARGET],
    ['source is javascript:', 'javascript:alert(1)', TARGET],
    ['source is data:', 'data:text/html,<a href="http://indiestack.test/post">x</a>', TARGET],
    ['source is file:', 'file:///etc/passwd', TARGET],
    ['target is ftp:', SOURCE, 'ftp://indiestack.test/post'],
    ['target is javascript:', SOURCE, 'javascript:alert(1)'],
    ['target is mailto:', SOURCE, 'mailto:me@indiestack.test'],
    ['source equals target', TARGET, TARGET],
    ['source equals target canonically (www., case, trailing slash, fragment)', 'HTTP://WWW.IndieStack.test/post/#reply', TARGET],
    ['source equals target canonically (query order)', `${SITE}/search?b=2&a=1`, `${SITE}/search?a=1&b=2`],
    ['target is on another host', SOURCE, 'https://elsewhere.example/post'],
    ['target is on a subdomain of ours', SOURCE, 'http://blog.indiestack.test/post'],
    ['target only contains our host', SOURCE, 'http://indiestack.test.evil.example/post'],
    ['target names our URL in its query only', SOURCE, 'https://evil.example/?u=http://indiestack.test/post'],
  ])('400 invalid_request when %s, storing nothing and emitting nothing', async (_label, source, target) => {
    const before = await count();
    const result = await submit(t, source, target);
    expect(result.statusCode).toBe(400);
    expect(result.response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(result.response.body).toMatch(/^invalid_request: \S/);
    expect(result.location).toBeUndefined();
    expect(await count()).toBe(before);
    expect(events).toEqual([]);
  });

  it('emits webmention_received on the plugin instance with its payload, isNew false on a re-send', async () => {
    const first = await submit(t, 'https://them.example/notes/7', TARGET);
    t.clock.advance(5);
    await submit(t, 'https://them.example/notes/7', TARGET);
    const [created, resent] = events;
    expect(events).toHaveLength(2);
    expect(created).toEqual({
      id: first.id,
      source: 'https://them.example/notes/7',
      target: TARGET,
      statusUrl: first.location,
      isNew: true,
      receivedAt: new Date(t.clock.now().getTime() - 5000).toISOString(),
    });
    expect(resent).toEqual({ ...created, isNew: false, receivedAt: t.clock.now().toISOString() });
  });

  it('emits after storing and before processing: the listener finds the record pending', async () => {
    const seen: string[] = [];
    const listener = (event: WebmentionReceivedEvent) =>
      void t.app.indieweb.webmention.get(event.id).then((record) => seen.push(record.status));
    t.app.indieweb.events.on('webmention_received', listener);
    try {
      await submit(t, 'https://them.example/notes/8', TARGET);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen).toEqual(['pending']);
    } finally {
      t.app.indieweb.events.off('webmention_received', listener);
    }
  });

  it('201 even when a webmention_received listener throws', async () => {
    const listener = () => {
      throw new Error('listener failure');
    };
    t.app.indieweb.events.on('webmention_received', listener);
    try {
      const result = await submit(t, 'https://them.example/notes/9', TARGET);
      expect(result.statusCode).toBe(201);
      expect((await statusOf(t, result.id)).status).toBe('pending');
    } finally {
      t.app.indieweb.events.off('webmention_received', listener);
    }
  });
});

describe('POST /indieweb/webmention/ with INDIEWEB_WEBMENTION_TARGET_HOSTS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { INDIEWEB_WEBMENTION_TARGET_HOSTS: 'blog.example, www.notes.example' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    'https://blog.example/post',
    'https://www.blog.example/post',
    'http://notes.example/1',
    'http://www.notes.example/1',
    `${SITE}/post`,
  ])('201 for a target on %s', async (target) => {
    expect((await submit(t, SOURCE, target)).statusCode).toBe(201);
  });

  it.each(['https://other.example/post', 'https://sub.blog.example/post'])('400 for a target on %s', async (target) => {
    expect((await submit(t, SOURCE, target)).statusCode).toBe(400);
  });
});

describe('the onWebmentionReceived plugin option', () => {
  let database: TestDatabase;
  let host: FastifyInstance;
  const received: WebmentionReceivedEvent[] = [];
  const clock = createManualClock('2026-03-04T05:06:07.000Z');

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    host = Fastify();
    await host.register(indieweb, {
      database,
      secret: TEST_SECRET,
      clock,
      worker: false,
      config: loadConfig({ env: { INDIEWEB_BASE_URL: 'https://host.example' } }),
      onWebmentionReceived: (event) => received.push(event),
    });
    await host.ready();
  });
  afterAll(async () => {
    await host.close();
    await database.dispose();
  });

  it('is called once per accepted submission with the documented payload', async () => {
    const id = await accepted({ app: host }, SOURCE, 'https://host.example/post');
    expect(received).toEqual([
      {
        id,
        source: SOURCE,
        target: 'https://host.example/post',
        statusUrl: `https://host.example/indieweb/webmention/${id}`,
        isNew: true,
        receivedAt: '2026-03-04T05:06:07.000Z',
      },
    ]);
    expect(Object.keys(received[0]!).sort()).toEqual(['id', 'isNew', 'receivedAt', 'source', 'statusUrl', 'target']);
  });

  it('is not called for a refused submission', async () => {
    const before = received.length;
    expect((await submit({ app: host }, SOURCE, 'https://not-ours.example/post')).statusCode).toBe(400);
    expect(received).toHaveLength(before);
  });
});
