/**
 * Issue 18, plugin mode: a host gets the database handler by naming it in
 * the config it passes, or builds it with the exported factory to wrap it.
 */
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabaseHandler, createEntriesRepository, indieweb, loadConfig } from '../../src/index.js';
import { createMemoryHandler } from '../../src/content/handlers/memory.js';
import { TEST_SECRET } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { CLIENT_ID } from '../helpers/indieauth.js';
import { micropubGet, postForm } from '../helpers/micropub.js';

const BASE_URL = 'http://indiestack.test';

describe('the database handler in plugin mode', () => {
  let database: TestDatabase | undefined;
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    await database?.dispose();
  });

  async function host(options: { env?: Record<string, string>; wrap?: boolean }) {
    database = await openTestDatabase('sqlite');
    const app = Fastify();
    const created: string[] = [];
    const stored = createDatabaseHandler({ baseUrl: BASE_URL, entries: createEntriesRepository(database.db) });
    await app.register(indieweb, {
      database,
      secret: TEST_SECRET,
      config: loadConfig({ env: { INDIEWEB_BASE_URL: BASE_URL, ...options.env } }),
      ...(options.wrap === true
        ? {
            handler: {
              ...stored,
              createEntry: async (entry, user) => {
                const result = await stored.createEntry(entry, user);
                created.push(result.url);
                return result;
              },
            },
          }
        : {}),
    });
    await app.ready();
    close = () => app.close();
    const alice = await app.indieweb.users!.addUser({ name: 'alice', me: ['https://alice.example/'], password: 'a long password' });
    const { token } = await app.indieweb.tokens.issue({
      userId: alice.id,
      clientId: CLIENT_ID,
      me: 'https://alice.example/',
      scope: 'create update',
      expiresIn: 3600,
    });
    return { app, token, created, entries: createEntriesRepository(database.db) };
  }

  it('INDIEWEB_MICROPUB_HANDLER=database in the config stores entries in the registered database, answering q=config as the in-memory handler', async () => {
    const { app, token, entries } = await host({ env: { INDIEWEB_MICROPUB_HANDLER: 'database' } });
    const response = await postForm(app, token, { h: 'entry', name: 'From the host', content: 'hi' });
    expect(response.statusCode).toBe(201);
    const url = response.headers.location as string;
    expect(url).toMatch(/^http:\/\/indiestack\.test\/alice\/\d{4}\/\d{2}\/from-the-host\/$/);
    expect((await entries.findByPath(new URL(url).pathname))?.properties).toEqual({ name: ['From the host'], content: ['hi'] });
    const config = (await micropubGet(app, token, { q: 'config' })).json() as Record<string, unknown>;
    expect(config).toEqual({
      ...(await createMemoryHandler({ baseUrl: BASE_URL }).getConfig({ id: 'x', name: 'x', me: [], isActive: true })),
      'media-endpoint': `${BASE_URL}/indieweb/media/`,
    });
  });

  it('a host wraps the exported factory and passes it as handler', async () => {
    const { app, token, created } = await host({ wrap: true });
    const response = await postForm(app, token, { h: 'entry', content: 'wrapped' });
    expect(response.statusCode).toBe(201);
    expect(created).toEqual([response.headers.location]);
    const source = await micropubGet(app, token, { q: 'source', url: response.headers.location as string });
    expect(source.json()).toEqual({ type: ['h-entry'], properties: { content: ['wrapped'] } });
  });
});
