/**
 * Issue 23 #6, the thread pool: 64 parallel sign-ins pushed a stored media
 * file fetch from 3 ms to 14 s, because scrypt runs on libuv's pool of 4
 * threads that file reads share. At most INDIEWEB_MAX_CONCURRENT_HASHES (2)
 * hashes now run at once; the other sign-ins wait their turn among themselves.
 * The sign-in throttle is off here, so every one of the 64 is really hashed.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, buildAdminApp, issueToken, uploadFile, type AdminTestApp } from '../helpers/admin.js';
import { CookieJar, form, hiddenField } from '../helpers/app.js';

/** Milliseconds a request takes, and its answer. */
async function timed(request: () => Promise<LightMyRequestResponse>): Promise<{ ms: number; response: LightMyRequestResponse }> {
  const started = performance.now();
  const response = await request();
  return { ms: performance.now() - started, response };
}

describe('64 parallel sign-ins', () => {
  let t: AdminTestApp;
  let mediaPath: string;
  beforeAll(async () => {
    t = await buildAdminApp({ INDIEWEB_SIGNIN_FREE_ATTEMPTS: 'none' });
    const alice = await addUser(t, 'alice');
    const { token } = await issueToken(t, alice.user, { scope: 'media' });
    const upload = await uploadFile(t, token);
    expect(upload.statusCode).toBe(201);
    mediaPath = new URL(upload.headers.location as string).pathname;
  });
  afterAll(async () => {
    await t.close();
  });

  it('leave a stored media file and /healthz answering within a second while they are hashed', { timeout: 120_000 }, async () => {
    const jar = new CookieJar();
    const page = await t.app.inject({ method: 'GET', url: '/indieweb/login/' });
    jar.storeFrom(page);
    const csrf = hiddenField(page.body, '_csrf');
    let settled = 0;
    const signIns = Array.from({ length: 64 }, (_, i) =>
      t.app
        .inject({
          method: 'POST',
          url: '/indieweb/login/',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          payload: form({ _csrf: csrf, username: 'alice', password: `not the password ${i}` }),
        })
        .finally(() => (settled += 1)),
    );
    // let every sign-in reach its hash before measuring
    await new Promise((resolve) => setTimeout(resolve, 100));

    let worst = 0;
    for (let i = 0; i < 10; i++) {
      const file = await timed(() => t.app.inject({ method: 'GET', url: mediaPath }));
      expect(file.response.statusCode).toBe(200);
      expect(file.response.headers['content-type']).toBe('image/png');
      const health = await timed(() => t.app.inject({ method: 'GET', url: '/healthz' }));
      expect(health.response.statusCode).toBe(200);
      worst = Math.max(worst, file.ms, health.ms);
    }
    // the measurement ran while sign-ins were still being hashed
    expect(settled).toBeLessThan(64);
    // generous: unaffected requests take milliseconds; a starved thread pool took seconds
    expect(worst).toBeLessThan(1_000);
    const answers = await Promise.all(signIns);
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array.from({ length: 64 }, () => 401));
  });
});
