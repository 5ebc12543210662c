/**
 * SPEC.md "Errors" (Micropub and media, 500): details of a handler failure go
 * to the server log, never to the client.
 */
import { describe, expect, it } from 'vitest';
import { createSpyHandler, micropubGet, mountedApp, postForm } from '../helpers/micropub.js';

describe('a handler failure is logged, not answered', () => {
  it('500 with an empty body; the log line carries the error and the request id', async () => {
    const lines: Record<string, unknown>[] = [];
    const { handler } = createSpyHandler({
      createEntry: async () => {
        throw new Error('disk on fire: /srv/secret/path');
      },
      getEntry: async () => {
        throw new Error('database gone: secret detail');
      },
    });
    const t = await mountedApp({ handler, log: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
    try {
      const token = await t.token('create update');
      const created = await postForm(t.app, token, { h: 'entry', content: 'x' });
      expect(created.statusCode).toBe(500);
      expect(created.body).toBe('');
      const source = await micropubGet(t.app, token, { q: 'source', url: 'http://indiestack.test/indieweb/entries/x' });
      expect(source.statusCode).toBe(500);
      expect(source.body).toBe('');

      const errors = lines.filter((line) => Number(line.level) >= 50);
      expect(errors.map((line) => JSON.stringify(line.err))).toEqual([
        expect.stringContaining('disk on fire'),
        expect.stringContaining('database gone'),
      ]);
      for (const line of errors) expect(line.reqId).toBeDefined();
      // and the credential itself is never logged
      expect(lines.length).toBeGreaterThan(2);
      expect(JSON.stringify(lines)).not.toContain(token);
    } finally {
      await t.close();
    }
  });
});
