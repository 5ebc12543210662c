import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/databases.js';
import { buildTestApp } from '../helpers/app.js';

for (const dialect of DIALECTS) {
  describe(`GET /healthz on ${dialect}`, () => {
    it('200 {"status":"ok"} while the database answers, 503 once it does not', async () => {
      const t = await buildTestApp({ dialect });
      try {
        const ok = await t.app.inject({ method: 'GET', url: '/healthz' });
        expect(ok.statusCode).toBe(200);
        expect(ok.json()).toEqual({ status: 'ok' });
        await t.database.close();
        const down = await t.app.inject({ method: 'GET', url: '/healthz' });
        expect(down.statusCode).toBe(503);
        expect(down.json()).toEqual({ status: 'unavailable' });
      } finally {
        await t.close();
      }
    });
  });
}

describe('GET /', () => {
  it('302 to the account home', async () => {
    const t = await buildTestApp();
    try {
      const response = await t.app.inject({ method: 'GET', url: '/' });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/indieweb/');
    } finally {
      await t.close();
    }
  });
});
