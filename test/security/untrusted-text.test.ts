/**
 * Issue 28 F1 and F5, reproduced over real HTTP on loopback, on a SQLite file
 * and on PostgreSQL: a post made of hostile text (200 KB of `<`, 200 KB of
 * dots after a link) is created through Micropub with an ordinary `create`
 * token, then viewed (F1: its page, the home page, feed.atom) or sent on
 * publish (F5). Before the fix each took minutes (a quadratic regular
 * expression on the event loop), so these tests ran past their timeout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { entriesApp, pathOf, type EntriesTestApp } from '../helpers/entries.js';
import { MICROPUB } from '../helpers/micropub.js';
import { listenOnLoopback } from '../helpers/net.js';
import { PRIVATE_OK } from '../helpers/webmention.js';
import { childNamed, childrenNamed, parseXmlStrict } from '../helpers/xml.js';

const HOSTILE_LENGTH = 200_000;

/** Creates an entry through the Micropub endpoint over the socket; returns its URL. */
async function createOverHttp(origin: string, token: string, properties: Record<string, unknown[]>): Promise<string> {
  const response = await fetch(`${origin}${MICROPUB}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: ['h-entry'], properties }),
  });
  expect(response.status).toBe(201);
  return response.headers.get('location')!;
}

const originOf = (app: TestApp['app']) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

for (const dialect of DIALECTS) {
  describe(`F1: a post of 200 KB of "<" is viewed like any other (${dialect})`, () => {
    let t: EntriesTestApp;
    let origin: string;
    let path: string;
    // the title reads the start of the text: "Hello world", then the unclosed "<" run, cut at 70 characters
    const title = `Hello world ${'<'.repeat(57)}…`;
    const escapedTitle = title.replaceAll('<', '&lt;');

    beforeAll(async () => {
      t = await entriesApp({ dialect });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      origin = originOf(t.app);
      path = pathOf(
        await createOverHttp(origin, await t.token(), { content: [{ html: `<p>Hello world</p>${'<'.repeat(HOSTILE_LENGTH)}` }] }),
      );
    });
    afterAll(async () => t?.close());

    it('its page answers 200 with the title from the start of its text', async () => {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain(`<title>${escapedTitle} · `);
    });

    it('the home page answers 200 and lists it', async () => {
      const response = await fetch(`${origin}/alice/`);
      expect(response.status).toBe(200);
      const body = await response.text();
      expect(body).toContain('<p class="count">1 post</p>');
      expect(body).toContain(`href="http://indiestack.test${path}"`);
    });

    it('feed.atom answers 200, well-formed, with the entry under that title', async () => {
      const response = await fetch(`${origin}/alice/feed.atom`);
      expect(response.status).toBe(200);
      const entries = childrenNamed(parseXmlStrict(await response.text()), 'entry');
      expect(entries.map((entry) => childNamed(entry, 'title').text)).toEqual([title]);
    });
  });

  describe(`F5: a link followed by 200 KB of dots is sent on publish (${dialect})`, () => {
    let t: TestApp;
    let origin: string;
    let token: string;
    let receiver: http.Server;
    let receiverOrigin: string;
    const received: string[] = [];

    beforeAll(async () => {
      receiver = http.createServer((request, response) => {
        if (request.method === 'GET')
          return response.writeHead(200, { 'content-type': 'text/html' }).end('<link rel="webmention" href="/endpoint">');
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        request.on('end', () => {
          received.push(new URLSearchParams(body).get('target') ?? '');
          response.writeHead(202).end();
        });
      });
      await listenOnLoopback(receiver, 0);
      receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      t = await buildTestApp({ dialect, env: { ...PRIVATE_OK, INDIEWEB_MICROPUB_HANDLER: 'database' } });
      const alice = await t.app.indieweb.users!.addUser({ name: 'alice', me: ['https://alice.example/'], password: 'alice password 1' });
      token = (
        await t.app.indieweb.tokens.issue({
          userId: alice.id,
          clientId: 'https://app.example/',
          me: 'https://alice.example/',
          scope: 'create',
          expiresIn: 3600,
        })
      ).token;
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      origin = originOf(t.app);
    });
    afterAll(async () => {
      await t?.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    });

    it('the linked pages get their webmentions, sentence ends left off; a link with 200 KB of dots inside is kept whole', async () => {
      // dots followed by more of the URL: the old trim retried at each of them (F5)
      const dotted = `${receiverOrigin}/page/dots${'.'.repeat(HOSTILE_LENGTH)}x`;
      await createOverHttp(origin, token, {
        content: [
          `See ${dotted}. Also ${receiverOrigin}/page/mixed${'.,;:!?)]'.repeat(HOSTILE_LENGTH / 8)} and ${receiverOrigin}/page/plain.`,
        ],
      });
      await t.app.indieweb.jobs.drain();
      // the 200 KB target is tried (its page answers 431 to so long a request line) but gets nothing
      expect(received.sort()).toEqual([`${receiverOrigin}/page/mixed`, `${receiverOrigin}/page/plain`]);
      const targets = await t.database.db.selectFrom('indieweb_webmention_outgoing').select('target').execute();
      expect(targets.map((row) => row.target).sort()).toEqual(
        [dotted, `${receiverOrigin}/page/mixed`, `${receiverOrigin}/page/plain`].sort(),
      );
    });
  });
}
