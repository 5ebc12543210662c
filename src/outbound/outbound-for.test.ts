import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_TIMEOUT_S } from '../config/config.js';
import { loadConfig } from '../config/env.js';
import { closeParsePool, PARSE_LIMITS } from '../html/pool.js';
import { outboundFor } from './fetch.js';

const PARSE = new URL('../webmention/parse.js', import.meta.url);
const TARGET = 'https://target.example/post';
/** Minutes of work for microformats-parser: one link with 100,000 distinct rel values. */
const RELS = Array.from({ length: 100_000 }, (_, i) => `r${i}`).join(' ');
const SLOW = `<div class="h-entry"><a class="u-in-reply-to" href="${TARGET}">re</a><a href="/x" rel="${RELS}">x</a></div>`;
const ENV = { INDIEWEB_BASE_URL: 'https://example.com', INDIEWEB_SECRET: 'a-secret-that-is-long-enough-for-indiestack' };

afterAll(() => closeParsePool());

describe('INDIEWEB_PARSE_TIMEOUT', () => {
  it('defaults to the parse pool’s own budget, 5 s', () => {
    expect(loadConfig({ env: ENV }).parseTimeout).toBe(DEFAULT_PARSE_TIMEOUT_S);
    expect(DEFAULT_PARSE_TIMEOUT_S * 1000).toBe(PARSE_LIMITS.budgetMs);
  });

  it('takes whole seconds from 1 to 60 and refuses anything else with the setting’s name', () => {
    expect(loadConfig({ env: { ...ENV, INDIEWEB_PARSE_TIMEOUT: '60' } }).parseTimeout).toBe(60);
    for (const bad of ['0', '61', '1.5', 'soon'])
      expect(() => loadConfig({ env: { ...ENV, INDIEWEB_PARSE_TIMEOUT: bad } })).toThrow(/INDIEWEB_PARSE_TIMEOUT/);
  });

  it('is the time the server’s fetcher gives a page to parse', async () => {
    const outbound = outboundFor(loadConfig({ env: { ...ENV, INDIEWEB_PARSE_TIMEOUT: '1' } }));
    await expect(outbound.read(PARSE, 'readSource', [SLOW, 'https://source.example/', TARGET])).rejects.toMatchObject({
      kind: 'over-budget',
      message: 'the page took longer than 1000 ms to read',
    });
    await outbound.close();
  }, 20_000);
});
