import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Accounts, HostUser } from '../src/contracts/index.js';
import { loadConfig } from '../src/config/env.js';
import { indieweb } from '../src/app/plugin.js';
import { openTestDatabase, type TestDatabase } from './helpers/databases.js';
import { TEST_SECRET } from './helpers/app.js';

const alice: HostUser = { id: 'host-1', name: 'alice', me: ['https://alice.example/'], isActive: true };

describe('plugin mode: mounted inside a host application', () => {
  let database: TestDatabase;
  let host: FastifyInstance;
  const hostErrors: string[] = [];

  beforeAll(async () => {
    database = await openTestDatabase('sqlite');
    host = Fastify();
    await host.register(formbody);
    host.setErrorHandler((error: Error, _request, reply) => {
      hostErrors.push(error.message);
      return reply.code(418).send({ host: 'error handler' });
    });
    host.get('/', async () => ({ host: 'home' }));
    host.post('/echo', async (request) => ({ got: request.body }));
    host.get('/boom', async () => {
      throw new Error('host failure');
    });
    const accounts: Accounts = {
      currentUser: (request) => (request.headers['x-host-user'] === 'alice' ? alice : null),
      loginUrl: (returnTo) => `/host-login?next=${encodeURIComponent(returnTo)}`,
      findUser: (id) => (id === alice.id ? alice : null),
    };
    await host.register(indieweb, {
      database,
      accounts,
      secret: TEST_SECRET,
      config: loadConfig({ env: { INDIEWEB_BASE_URL: 'https://host.example' } }),
    });
    await host.ready();
  });

  afterAll(async () => {
    await host.close();
    await database.dispose();
  });

  it("keeps the host's routes, form parser and error handler working", async () => {
    expect((await host.inject({ method: 'GET', url: '/' })).json()).toEqual({ host: 'home' });
    const echo = await host.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=1&b=2',
    });
    expect(echo.json()).toEqual({ got: { a: '1', b: '2' } });
    const json = await host.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"x":[1]}' });
    expect(json.json()).toEqual({ got: { x: [1] } });
    const boom = await host.inject({ method: 'GET', url: '/boom' });
    expect(boom.statusCode).toBe(418);
    expect(hostErrors).toEqual(['host failure']);
  });

  it('exposes the indieweb decorator to the host', () => {
    expect(host.indieweb.config.baseUrl).toBe('https://host.example');
    expect(host.indieweb.users).toBeNull();
  });

  it("uses the host's accounts: its login URL and its signed-in user", async () => {
    expect(host.indieweb.accounts.loginUrl('/indieweb/')).toBe('/host-login?next=%2Findieweb%2F');
    expect(await host.indieweb.accounts.currentUser({ headers: { 'x-host-user': 'alice' }, url: '/' })).toEqual(alice);
  });

  it('registers no built-in login page when the host brings its own accounts', async () => {
    const response = await host.inject({ method: 'GET', url: '/indieweb/login/' });
    expect(response.statusCode).toBe(404);
  });
});

describe("plugin mode: webmention owners with the host's accounts", () => {
  const hostAlice: HostUser = { id: 'host-a', name: 'alice', me: ['https://host.example/alice/'], isActive: true };
  const hostBob: HostUser = { id: 'host-b', name: 'bob', me: ['https://host.example/bob/'], isActive: true };
  const users = new Map([hostAlice, hostBob].map((user) => [user.name, user]));

  async function mount(listUsers: boolean): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
    const database = await openTestDatabase('sqlite');
    const app = Fastify();
    const accounts: Accounts = {
      currentUser: (request) => users.get(String(request.headers['x-host-user'])) ?? null,
      loginUrl: (returnTo) => `/host-login?next=${encodeURIComponent(returnTo)}`,
      findUser: (id) => [...users.values()].find((user) => user.id === id) ?? null,
      ...(listUsers ? { listUsers: () => [...users.values()] } : {}),
    };
    await app.register(indieweb, {
      database,
      accounts,
      secret: TEST_SECRET,
      config: loadConfig({ env: { INDIEWEB_BASE_URL: 'https://host.example' } }),
    });
    await app.ready();
    return {
      app,
      async close() {
        await app.close();
        await database.dispose();
      },
    };
  }
  const adminList = (app: FastifyInstance, name: string) =>
    app.inject({ method: 'GET', url: '/indieweb/admin/webmentions/', headers: { 'x-host-user': name } });

  it('with listUsers(): a mention belongs to the user whose profile URL covers the target, and only their admin lists it', async () => {
    const { app, close } = await mount(true);
    try {
      const { record } = await app.indieweb.webmention.receive('https://them.example/reply', 'https://host.example/alice/notes/1');
      expect(record.ownerId).toBe('host-a');
      expect((await adminList(app, 'alice')).body).toContain('https://them.example/reply');
      const bobs = await adminList(app, 'bob');
      expect(bobs.statusCode).toBe(200);
      expect(bobs.body).not.toContain('https://them.example/reply');
    } finally {
      await close();
    }
  });

  it('without listUsers(): no user owns a mention, so no admin lists it', async () => {
    const { app, close } = await mount(false);
    try {
      const { record } = await app.indieweb.webmention.receive('https://them.example/reply', 'https://host.example/alice/notes/1');
      expect(record.ownerId).toBeNull();
      for (const name of ['alice', 'bob']) expect((await adminList(app, name)).body).toContain('<p>No webmentions.</p>');
    } finally {
      await close();
    }
  });
});

describe('plugin mode: with the built-in accounts', () => {
  it('serves its login page and answers its own parse errors while the host keeps its parser and error handler', async () => {
    const database = await openTestDatabase('sqlite');
    const host = Fastify();
    const hostErrors: string[] = [];
    try {
      await host.register(formbody);
      host.setErrorHandler((error: Error, _request, reply) => {
        hostErrors.push(error.message);
        return reply.code(418).send({ host: 'error handler' });
      });
      host.post('/echo', async (request) => ({ got: request.body }));
      await host.register(indieweb, {
        database,
        secret: TEST_SECRET,
        config: loadConfig({ env: { INDIEWEB_BASE_URL: 'https://host.example' } }),
      });

      expect((await host.inject({ method: 'GET', url: '/indieweb/login/' })).statusCode).toBe(200);
      const ours = await host.inject({
        method: 'POST',
        url: '/indieweb/login/',
        headers: { 'content-type': 'application/json' },
        payload: '{',
      });
      expect(ours.statusCode).toBe(400);
      expect(ours.body).toBe('invalid_request');
      const theirs = await host.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{' });
      expect(theirs.statusCode).toBe(418);
      expect(hostErrors).toHaveLength(1);
      const echo = await host.inject({
        method: 'POST',
        url: '/echo',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'a=1',
      });
      expect(echo.json()).toEqual({ got: { a: '1' } });
    } finally {
      await host.close();
      await database.dispose();
    }
  });
});

describe('plugin mode: the one route outside /indieweb', () => {
  const WELL_KNOWN = '/.well-known/oauth-authorization-server';

  async function hostWith(options: { ownRoute: boolean; wellKnown?: boolean }) {
    const database = await openTestDatabase('sqlite');
    const host = Fastify();
    if (options.ownRoute) host.get(WELL_KNOWN, async () => ({ host: 'metadata' }));
    await host.register(indieweb, {
      database,
      secret: TEST_SECRET,
      config: loadConfig({ env: { INDIEWEB_BASE_URL: 'https://host.example' } }),
      ...(options.wellKnown === undefined ? {} : { wellKnown: options.wellKnown }),
    });
    await host.ready();
    return { host, close: async () => (await host.close(), await database.dispose()) };
  }

  it('is served by default, with the same document as /indieweb/metadata', async () => {
    const { host, close } = await hostWith({ ownRoute: false });
    try {
      const root = await host.inject({ method: 'GET', url: WELL_KNOWN });
      expect(root.statusCode).toBe(200);
      expect(root.json()).toEqual((await host.inject({ method: 'GET', url: '/indieweb/metadata' })).json());
      expect(root.json().issuer).toBe('https://host.example/');
    } finally {
      await close();
    }
  });

  it('a host that has the route keeps it, and registering does not fail with FST_ERR_DUPLICATED_ROUTE', async () => {
    const { host, close } = await hostWith({ ownRoute: true });
    try {
      expect((await host.inject({ method: 'GET', url: WELL_KNOWN })).json()).toEqual({ host: 'metadata' });
      expect((await host.inject({ method: 'GET', url: '/indieweb/metadata' })).statusCode).toBe(200);
    } finally {
      await close();
    }
  });

  it('wellKnown: false leaves the path to the host (404 until it adds one)', async () => {
    const { host, close } = await hostWith({ ownRoute: false, wellKnown: false });
    try {
      expect((await host.inject({ method: 'GET', url: WELL_KNOWN })).statusCode).toBe(404);
      expect((await host.inject({ method: 'GET', url: '/indieweb/metadata' })).statusCode).toBe(200);
    } finally {
      await close();
    }
  });
});
