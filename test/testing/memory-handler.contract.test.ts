import { describe, expect, it } from 'vitest';
import { createMemoryHandler } from '../../src/content/handlers/memory.js';
import { describeMicropubHandlerContract } from '../../src/testing/micropub-contract.js';
import type { MicropubHandler } from '../../src/contracts/micropub-handler.js';
import { HandlerValueError } from '../../src/contracts/handler-errors.js';

describeMicropubHandlerContract('in-memory handler', () => createMemoryHandler({ baseUrl: 'https://id.example' }), {
  describe,
  it,
  expect,
});

describe('the conformance suite itself', () => {
  it('catches a handler that leaks entries across users', async () => {
    const leaky = createMemoryHandler({ baseUrl: 'https://id.example' });
    const broken: MicropubHandler = {
      ...leaky,
      createEntry: (entry, user) => leaky.createEntry(entry, user),
      // ignores ownership: returns the entry for anyone
      getEntry: (url) => leaky.getEntry(url, { id: 'contract-alice', name: 'alice', me: [], isActive: true }),
    };
    const failures: string[] = [];
    const collected: { name: string; body: () => Promise<void> }[] = [];
    describeMicropubHandlerContract('broken', () => broken, {
      describe: (_name, body) => body(),
      it: (name, body) => collected.push({ name, body }),
      expect: (actual) => ({
        toBe: (expected) => {
          if (!Object.is(actual, expected)) throw new Error(`expected ${String(expected)}`);
        },
        toEqual: (expected) => {
          if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error('not equal');
        },
      }),
    });
    for (const test of collected) {
      await test.body().catch(() => failures.push(test.name));
    }
    expect(failures).toContain('get_entry answers null for an unknown URL and for another user’s entry');
  });

  it('catches a handler that throws plain errors instead of HandlerValueError', async () => {
    const base = createMemoryHandler({ baseUrl: 'https://id.example' });
    const broken: MicropubHandler = {
      ...base,
      createEntry: (entry, user) => base.createEntry(entry, user),
      getEntry: (url, user) => base.getEntry(url, user),
      updateEntry: async (url, ops, user) => {
        try {
          return await base.updateEntry(url, ops, user);
        } catch (error) {
          if (error instanceof HandlerValueError) throw new Error('plain');
          throw error;
        }
      },
    };
    const collected: { name: string; body: () => Promise<void> }[] = [];
    describeMicropubHandlerContract('broken', () => broken, {
      describe: (_name, body) => body(),
      it: (name, body) => collected.push({ name, body }),
      expect: (actual) => ({
        toBe: (expected) => {
          if (!Object.is(actual, expected)) throw new Error('not same');
        },
        toEqual: () => {},
      }),
    });
    const target = collected.find((test) => test.name.startsWith('update_entry throws HandlerValueError'));
    await expect(target?.body()).rejects.toThrow();
  });
});
