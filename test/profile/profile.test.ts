import { mf2 } from 'microformats-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateHCard, HCardValidationError } from '../../src/profile/h-card.js';
import { linkTags, renderHCard } from '../../src/profile/template-helpers.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { addAlice } from '../helpers/indieauth.js';

const CARD = {
  name: ['Alice Example'],
  url: ['https://alice.example/', 'https://social.example/@alice'],
  photo: ['https://alice.example/me.jpg'],
  email: ['mailto:alice@alice.example'],
  note: ['Writes about <b>things</b> & "stuff".'],
  nickname: ['al'],
  org: ['Example Org'],
};

describe('renderHCard', () => {
  it('renders escaped HTML that parses back to the same h-card', () => {
    const markup = renderHCard({ hCard: CARD }, { extraClasses: ['author', 'bad class"<'] });
    expect(markup).toContain('class="h-card author"');
    expect(markup).not.toContain('<b>');
    const parsed = mf2(markup, { baseUrl: 'https://alice.example/' });
    expect(parsed.items).toHaveLength(1);
    expect(parsed.items[0]?.type).toEqual(['h-card']);
    expect(parsed.items[0]?.properties).toEqual(CARD);
  });
});

describe('linkTags', () => {
  it('lists the endpoints to paste into a homepage', () => {
    const tags = linkTags('https://id.example/');
    for (const [rel, path] of [
      ['authorization_endpoint', '/indieweb/auth/'],
      ['token_endpoint', '/indieweb/token/'],
      ['micropub', '/indieweb/micropub/'],
      ['webmention', '/indieweb/webmention/'],
    ]) {
      expect(tags).toContain(`<link rel="${rel}" href="https://id.example${path}">`);
    }
  });
});

describe('validateHCard', () => {
  it('normalizes e-mail addresses to mailto: URLs and trims values', () => {
    expect(validateHCard({ email: [' alice@alice.example '], name: ['  Al  ', ''] })).toEqual({
      email: ['mailto:alice@alice.example'],
      name: ['Al'],
    });
  });

  it('reports every problem at once, by property', () => {
    try {
      validateHCard({
        url: ['javascript:alert(1)'],
        photo: ['/relative.jpg'],
        email: ['not-an-email'],
        'Bad Name': ['x'],
        note: 'not a list',
        name: [{ x: 1 }],
        org: ['x'.repeat(2001)],
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(HCardValidationError);
      expect((error as HCardValidationError).problems.map((p) => p.field).sort()).toEqual([
        'Bad Name',
        'email',
        'name',
        'note',
        'org',
        'photo',
        'url',
      ]);
    }
  });

  it.each([null, [], 'x', 42])('refuses %j as a whole', (value) => {
    expect(() => validateHCard(value)).toThrow(HCardValidationError);
  });
});

describe('GET /indieweb/profile/NAME/', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await addAlice(t);
    const user = (await t.app.indieweb.users!.findByName('alice'))!;
    await t.app.indieweb.profiles.update({ id: user.id, name: 'alice', me: user.me, isActive: true }, CARD);
  });
  afterAll(async () => {
    await t.close();
  });

  it('200 HTML whose h-card parses back to the stored data, with the endpoint links in its head', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/indieweb/profile/alice/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<link rel="micropub" href="http://indiestack.test/indieweb/micropub/">');
    const parsed = mf2(response.body, { baseUrl: 'http://indiestack.test/indieweb/profile/alice/' });
    const card = parsed.items.find((item) => item.type?.includes('h-card'));
    expect(card?.properties).toEqual(CARD);
    expect(parsed.rels.authorization_endpoint).toEqual(['http://indiestack.test/indieweb/auth/']);
  });

  it('200 JSON for Accept: application/json, with the synced columns', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/indieweb/profile/alice/', headers: { accept: 'application/json' } });
    expect(response.json()).toMatchObject({
      name: 'alice',
      h_card: CARD,
      profile: { name: 'Alice Example', photo_url: 'https://alice.example/me.jpg', url: 'https://alice.example/' },
    });
  });

  it('404 for an unknown account', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/indieweb/profile/nobody/' })).statusCode).toBe(404);
  });

  it('keeps name, photo_url and url in sync with the h-card in the table', async () => {
    const user = (await t.app.indieweb.users!.findByName('alice'))!;
    await t.app.indieweb.profiles.update({ id: user.id, name: 'alice', me: user.me, isActive: true }, { name: ['New Name'] });
    const row = await t.database.db.selectFrom('indieweb_profile').selectAll().executeTakeFirst();
    expect(row).toMatchObject({ name: 'New Name', photo_url: null, url: null });
    await t.app.indieweb.profiles.update({ id: user.id, name: 'alice', me: user.me, isActive: true }, CARD);
  });

  it('a profile never edited shows the account name and first profile URL', async () => {
    const t2 = await buildTestApp();
    try {
      await addAlice(t2);
      const response = await t2.app.inject({ method: 'GET', url: '/indieweb/profile/alice/', headers: { accept: 'application/json' } });
      expect(response.json().h_card).toEqual({ name: ['alice'], url: ['https://alice.example/'] });
    } finally {
      await t2.close();
    }
  });
});
