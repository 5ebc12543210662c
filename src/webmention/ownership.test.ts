import { describe, expect, it } from 'vitest';
import type { HostUser } from '../contracts/accounts.js';
import { createWebmentionOwnership } from './ownership.js';

const BASE_HOST = 'id.example';
const user = (id: string, ...me: string[]): HostUser => ({ id, name: id, me, isActive: true });
const alice = user('alice', 'https://alice.example/');
const bob = user('bob', 'https://bob.example/');

/** An ownership over `users` whose handler knows the entries in `entries` (url → owner id). */
function ownershipOf(
  users: readonly HostUser[] | null,
  entries: Record<string, string> = {},
  extra: { entryHosts?: (u: HostUser) => string[]; asked?: string[]; failFor?: string } = {},
) {
  return createWebmentionOwnership({
    listUsers: users === null ? null : async () => users,
    entryHosts: extra.entryHosts ?? (() => [BASE_HOST]),
    isEntryOf: async (url, u) => {
      extra.asked?.push(`${u.id} ${url}`);
      if (extra.failFor === u.id) throw new Error('handler down');
      return entries[url] === u.id;
    },
  });
}

describe('createWebmentionOwnership().ownerOf', () => {
  it('gives an entry to the user the handler knows it as, before any profile URL', async () => {
    // carol's profile is the whole base host, yet alice's entry there stays alice's
    const carol = user('carol', `https://${BASE_HOST}/`);
    const sut = ownershipOf([alice, bob, carol], { [`https://${BASE_HOST}/indieweb/entries/a1`]: 'alice' });
    expect(await sut.ownerOf(`https://${BASE_HOST}/indieweb/entries/a1`)).toBe('alice');
    expect(await sut.ownerOf(`https://${BASE_HOST}/indieweb/entries/unknown`)).toBe('carol');
  });

  it('gives a page below a profile URL to that user, the longest profile prefix winning, www. and scheme ignored', async () => {
    const shared = user('shared', 'https://shared.example/');
    const dora = user('dora', 'https://shared.example/dora');
    const sut = ownershipOf([alice, bob, shared, dora]);
    expect(await sut.ownerOf('https://alice.example/')).toBe('alice');
    expect(await sut.ownerOf('http://www.alice.example/notes/1?x=1')).toBe('alice');
    expect(await sut.ownerOf('https://bob.example/notes/1')).toBe('bob');
    expect(await sut.ownerOf('https://shared.example/dora')).toBe('dora');
    expect(await sut.ownerOf('https://shared.example/dora/notes/2')).toBe('dora');
    // a path segment is matched whole: /dorable is not below /dora
    expect(await sut.ownerOf('https://shared.example/dorable')).toBe('shared');
    expect(await sut.ownerOf('https://shared.example/')).toBe('shared');
  });

  it('gives nobody a target that no entry, no profile URL covers while several accounts exist', async () => {
    const sut = ownershipOf([alice, bob]);
    expect(await sut.ownerOf(`https://${BASE_HOST}/about`)).toBeNull();
    expect(await sut.ownerOf('https://alice.example.evil/')).toBeNull();
    expect(await sut.ownerOf('https://evil.example/alice.example/')).toBeNull();
  });

  it('gives the only account every target of the site', async () => {
    expect(await ownershipOf([alice]).ownerOf(`https://${BASE_HOST}/about`)).toBe('alice');
  });

  it('gives nobody a target two accounts claim equally', async () => {
    const twin = user('twin', 'https://alice.example/');
    expect(await ownershipOf([alice, twin]).ownerOf('https://alice.example/post')).toBeNull();
    // a handler that claims one entry for two users is not trusted with it, even where a profile URL would decide
    const confused = createWebmentionOwnership({
      listUsers: async () => [alice, bob],
      entryHosts: () => [BASE_HOST, 'alice.example'],
      isEntryOf: async () => true,
    });
    expect(await confused.ownerOf('https://alice.example/post')).toBeNull();
  });

  it('asks the handler only about users whose entries can live on the target host', async () => {
    const asked: string[] = [];
    const sut = ownershipOf(
      [alice, bob],
      {},
      { asked, entryHosts: (u) => (u.id === 'alice' ? [BASE_HOST, 'blog.alice.example'] : [BASE_HOST]) },
    );
    await sut.ownerOf('https://blog.alice.example/post');
    expect(asked).toEqual(['alice https://blog.alice.example/post']);
    asked.length = 0;
    await sut.ownerOf('https://bob.example/post');
    expect(asked).toEqual([]);
  });

  it('treats a failing handler lookup as "not this user\'s entry"', async () => {
    const url = `https://${BASE_HOST}/indieweb/entries/b1`;
    const sut = ownershipOf([alice, bob], { [url]: 'bob' }, { failFor: 'alice' });
    expect(await sut.ownerOf(url)).toBe('bob');
  });

  it('gives nobody anything when the accounts cannot be listed', async () => {
    expect(await ownershipOf(null).ownerOf('https://alice.example/')).toBeNull();
  });
});

describe('createWebmentionOwnership().owns', () => {
  it('is true only for the stored owner', () => {
    const sut = ownershipOf([alice, bob]);
    expect(sut.owns(alice, { ownerId: 'alice' })).toBe(true);
    expect(sut.owns(bob, { ownerId: 'alice' })).toBe(false);
    expect(sut.owns(alice, { ownerId: null })).toBe(false);
  });
});
