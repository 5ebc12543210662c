import { afterAll, describe, expect, it } from 'vitest';
import { closeParsePool, ParseFailure, parseOffThread, PARSE_LIMITS } from './pool.js';

const PARSE = new URL('../webmention/parse.js', import.meta.url);
const TARGET = 'https://target.example/post';
/** Minutes of work for microformats-parser: one link with 100,000 distinct rel values. */
const RELS = Array.from({ length: 100_000 }, (_, i) => `r${i}`).join(' ');
const SLOW = `<div class="h-entry"><a class="u-in-reply-to" href="${TARGET}">re</a><a href="/x" rel="${RELS}">x</a></div>`;
const QUICK = `<div class="h-entry"><a class="u-in-reply-to" href="${TARGET}">re</a><p class="e-content">Hello</p></div>`;

afterAll(() => closeParsePool());

describe('the parse pool (issue 28 class 1)', () => {
  it('reads a page in a worker and gives back plain data', async () => {
    const reading = await parseOffThread<{ linksToTarget: boolean; mention: { type: string; contentText: string } }>(PARSE, 'readSource', [
      QUICK,
      'https://source.example/',
      TARGET,
    ]);
    expect(reading).toMatchObject({ linksToTarget: true, mention: { type: 'reply', contentText: 'Hello' } });
  });

  it('stops a page over its budget; pages waiting behind it get a budget of their own, counted from when a worker takes them', async () => {
    // the budget covers starting the worker that replaces an aborted one (under the TypeScript loader in tests), so
    // it is well above that start-up even on a loaded machine, and far below the slow page's minutes
    const budgetMs = 1500;
    const slow = Array.from({ length: PARSE_LIMITS.threads * 2 }, () =>
      parseOffThread(PARSE, 'readSource', [SLOW, 'https://source.example/', TARGET], { budgetMs }),
    );
    const quick = parseOffThread<{ linksToTarget: boolean }>(PARSE, 'readSource', [QUICK, 'https://source.example/', TARGET], { budgetMs });
    for (const outcome of await Promise.allSettled(slow)) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ParseFailure);
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({
        kind: 'over-budget',
        message: 'the page took longer than 1500 ms to read',
      });
    }
    // it waited behind two budgets' worth of slow pages, yet was read
    expect(await quick).toMatchObject({ linksToTarget: true });
  }, 40_000);

  it('an error the page raises comes back with its name and message (a shape bound)', async () => {
    const deep = `${'<div>'.repeat(600)}<a href="${TARGET}">x</a>`;
    await expect(parseOffThread(PARSE, 'readSource', [deep, 'https://source.example/', TARGET])).rejects.toMatchObject({
      kind: 'refused',
      causeName: 'SourceTooComplexError',
      message: 'source page nests elements deeper than 512 levels',
    });
  });
});
