import { describe, expect, it } from 'vitest';
import { SyndicationError } from '../client.js';
import { createXrpc, retryAfterMs } from './xrpc.js';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  it.each([
    [{ 'retry-after': '7' }, 7000],
    [{ 'retry-after': 'Sun, 29 Nov 2026 12:00:30 GMT' }, 30_000],
    [{ 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }, 0],
    [{ 'ratelimit-reset': String(now / 1000 + 90) }, 90_000],
    [{ 'retry-after': '2', 'ratelimit-reset': String(now / 1000 + 90) }, 2000],
    [{ 'retry-after': 'soon' }, null],
    [{}, null],
  ])('%o → %s', (headers, ms) => {
    expect(retryAfterMs(new Headers(headers), now)).toBe(ms);
  });
});

/** A PDS double: answers createSession with a new token each time, and everything else with `answer`. */
function fakePds(answer: (nsid: string) => Response | Promise<Response>) {
  const calls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    const nsid = new URL(input instanceof Request ? input.url : input).pathname.replace('/xrpc/', '');
    calls.push(nsid);
    if (nsid === 'com.atproto.server.createSession')
      return Response.json({ did: 'did:plc:x', handle: 'x.test', accessJwt: `access-${calls.length}`, refreshJwt: 'refresh' });
    return answer(nsid);
  };
  return { calls, fetch };
}

const options = { pdsUrl: 'https://pds.example/', identifier: 'x.test', password: 'aaaa-bbbb-cccc-dddd' };

describe('createXrpc', () => {
  it('shares one session between the clients of one account (Bluesky limits createSession)', async () => {
    const pds = fakePds(() => Response.json({}));
    const one = createXrpc({ ...options, fetch: pds.fetch });
    const two = createXrpc({ ...options, fetch: pds.fetch });
    await Promise.all([one.call('GET', 'a.b.c'), two.call('GET', 'a.b.c'), one.call('GET', 'a.b.c')]);
    expect(pds.calls.filter((nsid) => nsid === 'com.atproto.server.createSession')).toHaveLength(1);
    await createXrpc({ ...options, password: 'other-pass-word-xxxx', fetch: pds.fetch }).session();
    expect(pds.calls.filter((nsid) => nsid === 'com.atproto.server.createSession')).toHaveLength(2);
  });

  it('a 503 page that is not JSON is transient, with its Retry-After', async () => {
    const pds = fakePds(() => new Response('<h1>Service Unavailable</h1>', { status: 503, headers: { 'retry-after': '1' } }));
    const error = await createXrpc({ ...options, fetch: pds.fetch })
      .call('POST', 'com.atproto.repo.createRecord', { json: {} })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SyndicationError);
    expect(error).toMatchObject({ transient: true, retryAfterMs: 1000, message: 'Bluesky com.atproto.repo.createRecord answered 503' });
  });

  it('a request that gets no answer is transient and names no secret', async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const error = await createXrpc({ ...options, pdsUrl: 'https://unreachable.example', fetch })
      .session()
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ transient: true, message: 'Bluesky com.atproto.server.createSession: could not reach the PDS' });
    expect(String((error as Error).message)).not.toContain(options.password);
  });
});
