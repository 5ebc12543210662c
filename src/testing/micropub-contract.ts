/**
 * A conformance suite for Micropub content handlers. A host runs it with its
 * own test runner against its own handler; it needs only `describe`, `it`
 * and an `expect` with `toBe` and `toEqual`.
 * @module
 */
import type { HostUser } from '../contracts/accounts.js';
import { isHandlerValueError } from '../contracts/handler-errors.js';
import type { MicropubHandler } from '../contracts/micropub-handler.js';
import type { MicropubEntry } from '../contracts/micropub-types.js';

export interface ContractExpectation {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
}

/** The parts of a test runner the suite uses (vitest, jest, node:test adapters…). */
export interface ContractRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  expect(actual: unknown): ContractExpectation;
}

export interface ContractOptions {
  /** Two distinct active users; ownership is checked between them. */
  readonly users?: readonly [HostUser, HostUser];
}

const DEFAULT_USERS: readonly [HostUser, HostUser] = [
  { id: 'contract-alice', name: 'alice', me: ['https://alice.example/'], isActive: true },
  { id: 'contract-bob', name: 'bob', me: ['https://bob.example/'], isActive: true },
];

/**
 * Declares the suite.
 * @example
 * ```ts
 * import { describe, it, expect } from 'vitest';
 * import { describeMicropubHandlerContract } from 'indiestack/testing';
 * describeMicropubHandlerContract('my handler', () => createMyHandler(), { describe, it, expect });
 * ```
 */
export function describeMicropubHandlerContract(
  name: string,
  createHandler: () => MicropubHandler | Promise<MicropubHandler>,
  runner: ContractRunner,
  options: ContractOptions = {},
): void {
  const { describe, it, expect } = runner;
  const [alice, bob] = options.users ?? DEFAULT_USERS;

  async function expectValueError(operation: () => Promise<unknown>): Promise<void> {
    let thrown: unknown = null;
    try {
      await operation();
    } catch (error) {
      thrown = error;
    }
    expect(isHandlerValueError(thrown)).toBe(true);
  }

  async function createNote(handler: MicropubHandler, user: HostUser, content = 'hello world'): Promise<MicropubEntry> {
    return handler.createEntry({ type: ['h-entry'], properties: { content: [content], category: ['one', 'two'] } }, user);
  }

  describe(`Micropub handler contract: ${name}`, () => {
    it('create_entry returns an absolute http(s) URL and get_entry returns the entry', async () => {
      const handler = await createHandler();
      const created = await createNote(handler, alice);
      expect(/^https?:\/\//.test(created.url)).toBe(true);
      const found = await handler.getEntry(created.url, alice);
      expect(found?.type).toEqual(['h-entry']);
      expect(found?.properties.content).toEqual(['hello world']);
      expect(found?.properties.category).toEqual(['one', 'two']);
    });

    it('create_entry keeps structured values (html content, photo with alt)', async () => {
      const handler = await createHandler();
      const properties = { content: [{ html: '<p>Hi</p>' }], photo: [{ value: 'https://alice.example/p.jpg', alt: 'a photo' }] };
      const created = await handler.createEntry({ type: ['h-entry'], properties }, alice);
      expect((await handler.getEntry(created.url, alice))?.properties.photo).toEqual(properties.photo);
      expect((await handler.getEntry(created.url, alice))?.properties.content).toEqual(properties.content);
    });

    it('two entries get two URLs', async () => {
      const handler = await createHandler();
      const first = await createNote(handler, alice, 'first');
      const second = await createNote(handler, alice, 'second');
      expect(first.url === second.url).toBe(false);
    });

    it('get_entry answers null for an unknown URL and for another user’s entry', async () => {
      const handler = await createHandler();
      const created = await createNote(handler, alice);
      expect(await handler.getEntry(`${created.url}-unknown`, alice)).toBe(null);
      expect(await handler.getEntry(created.url, bob)).toBe(null);
    });

    it('update_entry replaces, adds and deletes properties and values', async () => {
      const handler = await createHandler();
      const created = await createNote(handler, alice);
      await handler.updateEntry(
        created.url,
        { replace: { content: ['changed'] }, add: { category: ['three'], syndication: ['https://elsewhere.example/1'] } },
        alice,
      );
      let found = await handler.getEntry(created.url, alice);
      expect(found?.properties.content).toEqual(['changed']);
      expect(found?.properties.category).toEqual(['one', 'two', 'three']);
      await handler.updateEntry(created.url, { delete: { category: ['two'] } }, alice);
      found = await handler.getEntry(created.url, alice);
      expect(found?.properties.category).toEqual(['one', 'three']);
      await handler.updateEntry(created.url, { delete: ['syndication'] }, alice);
      found = await handler.getEntry(created.url, alice);
      expect(found?.properties.syndication === undefined).toBe(true);
    });

    it('update_entry throws HandlerValueError for an unknown URL and for another user’s entry, changing nothing', async () => {
      const handler = await createHandler();
      const created = await createNote(handler, alice);
      await expectValueError(() => handler.updateEntry(`${created.url}-unknown`, { replace: { content: ['x'] } }, alice));
      await expectValueError(() => handler.updateEntry(created.url, { replace: { content: ['stolen'] } }, bob));
      expect((await handler.getEntry(created.url, alice))?.properties.content).toEqual(['hello world']);
    });

    it('delete_entry hides the entry and undelete_entry brings it back', async () => {
      const handler = await createHandler();
      const created = await createNote(handler, alice);
      await handler.deleteEntry(created.url, alice);
      expect(await handler.getEntry(created.url, alice)).toBe(null);
      const restored = await handler.undeleteEntry(created.url, alice);
      expect(typeof restored.url).toBe('string');
      expect((await handler.getEntry(restored.url, alice))?.properties.content).toEqual(['hello world']);
    });

    it('delete_entry and undelete_entry throw HandlerValueError for unknown targets and other users', async () => {
      const handler = await createHandler();
      const created = await createNote(handler, alice);
      await expectValueError(() => handler.deleteEntry(`${created.url}-unknown`, alice));
      await expectValueError(() => handler.deleteEntry(created.url, bob));
      expect((await handler.getEntry(created.url, alice)) === null).toBe(false);
      // spec: undelete needs the URL in the deleted set
      await expectValueError(() => handler.undeleteEntry(created.url, alice));
      await handler.deleteEntry(created.url, alice);
      await expectValueError(() => handler.undeleteEntry(created.url, bob));
    });

    it('get_config answers a map; post-types, when present, are {type, name, properties}', async () => {
      const handler = await createHandler();
      const config = await handler.getConfig(alice);
      expect(typeof config === 'object' && config !== null).toBe(true);
      const postTypes = config['post-types'];
      if (postTypes !== undefined) {
        expect(Array.isArray(postTypes)).toBe(true);
        for (const postType of postTypes) {
          expect(typeof postType.type === 'string' && typeof postType.name === 'string' && Array.isArray(postType.properties)).toBe(true);
        }
      }
      const queries = config.q;
      if (queries !== undefined) expect(Array.isArray(queries)).toBe(true);
    });

    it('list_entries (when supported) pages the user’s own entries, filter first', async () => {
      const handler = await createHandler();
      if (handler.listEntries === undefined) return;
      for (let n = 0; n < 5; n++) await createNote(handler, alice, `entry number ${n}${n % 2 === 0 ? ' even' : ''}`);
      await createNote(handler, bob, 'bob even entry');
      const all = await handler.listEntries(alice, { limit: null, offset: 0, filter: null });
      expect(all.items.length).toBe(5);
      if (all.total !== undefined) expect(all.total).toBe(5);
      const page = await handler.listEntries(alice, { limit: 2, offset: 1, filter: null });
      expect(page.items.length).toBe(2);
      const filtered = await handler.listEntries(alice, { limit: null, offset: 0, filter: 'EVEN' });
      expect(filtered.items.length).toBe(3);
      const afterOffset = await handler.listEntries(alice, { limit: 10, offset: 2, filter: 'even' });
      expect(afterOffset.items.length).toBe(1);
    });
  });
}
