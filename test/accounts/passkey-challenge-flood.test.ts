/**
 * Issue 28 F8: passkey sign-in wrote a challenge row for every
 * unauthenticated request (206 rows/s from one client). Sign-in challenges
 * are now signed and stateless: asking for one, and answering it with a
 * forged answer, writes nothing; each is still answered once. Real HTTP on
 * loopback, SQLite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, hiddenField, type TestApp } from '../helpers/app.js';
import { DIALECTS } from '../helpers/databases.js';
import { addAlice } from '../helpers/indieauth.js';
import { LoopbackBrowser, serveOnLoopback } from '../helpers/loopback.js';

const BASE = 'http://indiestack.test';
const REQUESTS = 300;

/** An answer shaped like a browser's for the challenge, signed by nobody. */
function forgedAnswer(challenge: string): string {
  const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: BASE })).toString('base64url');
  return JSON.stringify({
    id: 'AAAA',
    rawId: 'AAAA',
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON, authenticatorData: 'AAAA', signature: 'AAAA' },
  });
}

for (const dialect of DIALECTS) {
  describe(`passkey sign-in challenges write nothing (${dialect}, real HTTP)`, () => {
    let t: TestApp;
    let origin: string;

    beforeAll(async () => {
      t = await buildTestApp({ dialect });
      await addAlice(t);
      origin = await serveOnLoopback(t.app);
    });
    afterAll(async () => t?.close());

    const rows = async () => (await t.database.db.selectFrom('indieweb_webauthn_challenge').select('id').execute()).length;

    it(`${REQUESTS} anonymous challenge requests and ${REQUESTS / 10} forged answers leave the challenge table empty; an answer is still judged once`, async () => {
      const browser = new LoopbackBrowser(origin);
      const csrf = hiddenField((await browser.get('/indieweb/login/')).body, '_csrf');
      const starts: { challengeId: string; options: { challenge: string } }[] = [];
      for (let n = 0; n < REQUESTS; n++) {
        const answer = await browser.post('/indieweb/login/passkey/options', { _csrf: csrf });
        expect(answer.status).toBe(200);
        starts.push(JSON.parse(answer.body));
      }
      expect(new Set(starts.map((start) => start.challengeId)).size).toBe(REQUESTS);
      expect(new Set(starts.map((start) => start.options.challenge)).size).toBe(REQUESTS);
      for (const start of starts.slice(0, REQUESTS / 10)) {
        const refused = await browser.post('/indieweb/login/passkey', {
          _csrf: csrf,
          return_to: '/indieweb/',
          challenge_id: start.challengeId,
          response: forgedAnswer(start.options.challenge),
        });
        expect(refused.status).toBe(401);
        expect(refused.body).toContain('This passkey is not registered here');
      }
      expect(await rows()).toBe(0);

      // the same answer again: already used; a challenge id we did not sign, or another's challenge: refused
      const [first, second] = starts;
      const again = await browser.post('/indieweb/login/passkey', {
        _csrf: csrf,
        return_to: '/indieweb/',
        challenge_id: first!.challengeId,
        response: forgedAnswer(first!.options.challenge),
      });
      expect(again.status).toBe(400);
      expect(again.body).toContain('This passkey request expired or was already used.');
      const made = `${second!.challengeId.slice(0, 21)}${second!.challengeId.endsWith('A') ? 'B' : 'A'}`;
      const unsigned = await browser.post('/indieweb/login/passkey', {
        _csrf: csrf,
        return_to: '/indieweb/',
        challenge_id: made,
        response: forgedAnswer(second!.options.challenge),
      });
      expect(unsigned.status).toBe(400);
      expect(unsigned.body).toContain('This passkey request expired or was already used.');
    });
  });
}
