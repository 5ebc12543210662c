/**
 * Issue 31: the server keeps the entry search index (SQLite: migration 0021;
 * PostgreSQL: migrations 0020 and 0022) up with the entries it stores, by
 * itself, and a filtered `q=source` list answers the same before and after
 * it has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entriesWaitingForSearch } from '../../src/storage/search-index.js';
import { DIALECTS } from '../helpers/databases.js';
import { entriesApp, type EntriesTestApp } from '../helpers/entries.js';
import { HOST, MICROPUB } from '../helpers/micropub.js';

describe.each(DIALECTS)('the entry search index in a running server (%s)', (dialect) => {
  let t: EntriesTestApp;
  let token: string;
  beforeAll(async () => {
    t = await entriesApp({ dialect, worker: true });
    token = await t.token();
  });
  afterAll(async () => {
    await t.close();
  });

  const waiting = () => entriesWaitingForSearch(t.database);

  const filtered = async (filter: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `${MICROPUB}?q=source&filter=${encodeURIComponent(filter)}`,
      headers: { host: HOST, authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    return (response.json() as { items: { properties: { content: string[] } }[] }).items.map((item) => item.properties.content[0]);
  };

  it('indexes what Micropub created while nothing else is written, and the list answers alike before and after', async () => {
    for (let i = 0; i < 25; i++) await t.create({ content: [i === 11 ? 'A Heron by the weir' : `a walk, number ${i}`] });
    const before = { heron: await filtered('heron by'), walks: (await filtered('a walk, number 1')).length };
    expect(before).toEqual({ heron: ['A Heron by the weir'], walks: 10 }); // 1, 10, 12–19
    await expect.poll(waiting, { timeout: 15_000, interval: 100 }).toBe(0);
    expect({ heron: await filtered('heron by'), walks: (await filtered('a walk, number 1')).length }).toEqual(before);
  });

  it('answers from the index with the list mode SPEC.md fixes: filter, then offset, then limit; paging with the total; a url on every item', async () => {
    await expect.poll(waiting, { timeout: 15_000, interval: 100 }).toBe(0);
    const page = await t.app.inject({
      method: 'GET',
      url: `${MICROPUB}?q=source&filter=${encodeURIComponent('A WALK, number 1')}&offset=2&limit=3`,
      headers: { host: HOST, authorization: `Bearer ${token}` },
    });
    expect(page.statusCode).toBe(200);
    const body = page.json() as { items: { type: string[]; properties: { url: string[] } }[]; paging: unknown };
    expect(body.paging).toEqual({ limit: 3, offset: 2, total: 10 });
    expect(body.items).toHaveLength(3);
    for (const item of body.items) expect(item.type).toEqual(['h-entry']);
    // the url the item is given matches a filter too
    const path = new URL(body.items[0]!.properties.url[0]!).pathname;
    const byUrl = await t.app.inject({
      method: 'GET',
      url: `${MICROPUB}?q=source&filter=${encodeURIComponent(path)}`,
      headers: { host: HOST, authorization: `Bearer ${token}` },
    });
    expect(
      (byUrl.json() as { items: { properties: { url: string[] } }[] }).items.map((item) => new URL(item.properties.url[0]!).pathname),
    ).toEqual([path]);
  });
});
