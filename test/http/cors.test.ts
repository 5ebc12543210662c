/**
 * SPEC.md "Limits": CORS headers are not added automatically — not to the
 * four endpoints, and not to a browser's preflight.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

describe('no CORS headers on the endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  const origin = { origin: 'https://app.example' };
  it.each([
    ['GET', '/indieweb/auth/?client_id=https://app.example/&redirect_uri=https://app.example/cb&state=s&me=https://alice.example/'],
    ['POST', '/indieweb/auth/'],
    ['POST', '/indieweb/token/'],
    ['GET', '/indieweb/micropub/?q=config'],
    ['POST', '/indieweb/micropub/'],
    ['GET', '/indieweb/media/?q=source'],
    ['POST', '/indieweb/media/'],
    ['OPTIONS', '/indieweb/micropub/'],
    ['OPTIONS', '/indieweb/token/'],
  ] as const)('%s %s answers without Access-Control-* headers', async (method, url) => {
    const response = await t.app.inject({
      method,
      url,
      headers: {
        ...origin,
        ...(method === 'OPTIONS' ? { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } : {}),
      },
      ...(method === 'POST' ? { payload: '' } : {}),
    });
    expect(response.statusCode).toBeLessThan(500);
    expect(Object.keys(response.headers).filter((name) => name.toLowerCase().startsWith('access-control-'))).toEqual([]);
  });
});
