import { describe, expect, it } from 'vitest';
import { serveOnLoopback } from '../helpers/loopback.js';
import { buildTestApp } from '../helpers/app.js';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('an address nothing answers', () => {
  it('a browser gets a styled 404 page, an API client our JSON error, and the framework wording never shows (standalone)', async () => {
    const t = await buildTestApp();
    try {
      const base = await serveOnLoopback(t.app);
      for (const path of ['/foo', '/indieweb/nothing-here', '/indieweb/admin/nope/deeper']) {
        const page = await fetch(`${base}${path}`, { headers: { accept: BROWSER } });
        expect(page.status).toBe(404);
        expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
        const body = await page.text();
        expect(body).toContain('<h1>Not found</h1>');
        expect(body).toContain('/indieweb/assets/ui-');
        expect(body).not.toMatch(/Route (GET|POST)/);

        const api = await fetch(`${base}${path}`);
        expect(api.status).toBe(404);
        expect(api.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await api.json()).toEqual({ error: 'not_found', error_description: 'nothing is here: check the address' });
      }
      const post = await fetch(`${base}/foo`, { method: 'POST', headers: { accept: 'application/json' } });
      expect(post.status).toBe(404);
      expect(await post.text()).not.toContain('Route POST');
    } finally {
      await t.close();
    }
  });
});
