import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOutbound, type Outbound } from '../../src/outbound/fetch.js';
import { findTargets, sendWebmentions, type SendProgress } from '../../src/webmention/send.js';
import { sourceCases, startFixtureServer, type FixtureServer } from '../fixtures/webmention-send/server.js';

const SOURCE = 'https://me.example/notes/1';

describe('sendWebmentions', () => {
  let server: FixtureServer;
  let outbound: Outbound;
  const advertising = (endpoint: string) => server.url(`/advertise?endpoint=${encodeURIComponent(endpoint)}`);
  const send = (targets: string[], source = SOURCE) => sendWebmentions({ source, targets, outbound });

  beforeAll(async () => {
    server = await startFixtureServer();
    outbound = createOutbound({ allowPrivateNetworks: true, timeoutMs: 5_000 });
  });
  afterAll(async () => {
    await outbound.close();
    await server.close();
  });
  beforeEach(() => {
    server.received.length = 0;
  });

  describe('delivery', () => {
    it.each([201, 202, 200, 204])('sent when the endpoint answers %i', async (status) => {
      const target = advertising(`/webmention/${status}`);
      expect(await send([target])).toEqual([{ target, status: 'sent', endpoint: server.url(`/webmention/${status}`), httpStatus: status }]);
    });

    it('sent: POSTs source and target as a form to the discovered endpoint', async () => {
      const target = server.url('/pages/html-link-absolute');
      const [result] = await send([target]);
      expect(result).toEqual({ target, status: 'sent', endpoint: server.url('/webmention/201?case=html-link-absolute'), httpStatus: 201 });
      expect(server.received).toEqual([
        {
          method: 'POST',
          path: '/webmention/201?case=html-link-absolute',
          contentType: 'application/x-www-form-urlencoded',
          body: new URLSearchParams({ source: SOURCE, target }).toString(),
        },
      ]);
    });

    it('sent: keeps the endpoint query string and sends source and target in the body only', async () => {
      const target = server.url('/pages/html-query-string');
      const [result] = await send([target]);
      expect(result).toMatchObject({
        status: 'sent',
        endpoint: server.url('/webmention/202?version=1&case=html-query-string'),
        httpStatus: 202,
      });
      expect(server.received).toHaveLength(1);
      const [received] = server.received;
      expect(received?.path).toBe('/webmention/202?version=1&case=html-query-string');
      expect(Object.fromEntries(new URLSearchParams(received?.body))).toEqual({ source: SOURCE, target });
    });

    it('sent: POSTs to the page itself when the endpoint href is empty', async () => {
      const target = server.url('/pages/html-empty-href');
      expect(await send([target])).toEqual([{ target, status: 'sent', endpoint: target, httpStatus: 202 }]);
      expect(server.received.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /pages/html-empty-href']);
    });

    it('sent: POSTs to a relative endpoint resolved against the final target URL after redirects', async () => {
      const target = server.url('/redirect/3?to=/pages/link-header-page-relative');
      expect(await send([target])).toEqual([
        { target, status: 'sent', endpoint: server.url('/pages/endpoint?case=link-header-page-relative'), httpStatus: 202 },
      ]);
      expect(server.received.map((r) => r.path)).toEqual(['/pages/endpoint?case=link-header-page-relative']);
    });

    // spec: POST delivery keeps the form payload across redirects — no exception for 303
    it.each([301, 302, 303, 307, 308])('sent: keeps the POST and its payload when the endpoint redirects with %i', async (code) => {
      const target = advertising(`/moved/${code}`);
      const [result] = await send([target]);
      expect(result).toEqual({ target, status: 'sent', endpoint: server.url(`/moved/${code}`), httpStatus: 201 });
      const body = new URLSearchParams({ source: SOURCE, target }).toString();
      expect(server.received).toEqual([
        { method: 'POST', path: `/moved/${code}`, contentType: 'application/x-www-form-urlencoded', body },
        { method: 'POST', path: `/webmention/201?via=${code}`, contentType: 'application/x-www-form-urlencoded', body },
      ]);
    });

    it.each([400, 404, 410, 429, 500, 503])('failed with httpStatus when the endpoint answers %i', async (status) => {
      const target = advertising(`/webmention/${status}`);
      expect(await send([target])).toEqual([
        {
          target,
          status: 'failed',
          endpoint: server.url(`/webmention/${status}`),
          httpStatus: status,
          error: `endpoint answered ${status}`,
        },
      ]);
    });

    it('failed when the endpoint redirects more than 5 times', async () => {
      const target = advertising('/redirect/6?code=307&to=/webmention/201');
      const [result] = await send([target]);
      expect(result).toMatchObject({ target, status: 'failed', error: 'delivery failed: more than 5 redirects' });
      expect(result).not.toHaveProperty('httpStatus');
    });
  });

  describe('discovery outcomes', () => {
    it('no-endpoint when the target advertises none, and nothing is POSTed', async () => {
      const target = server.url('/pages/no-endpoint');
      expect(await send([target])).toEqual([{ target, status: 'no-endpoint' }]);
      expect(server.received).toEqual([]);
    });

    it('failed when the target redirects 6 times', async () => {
      const target = server.url('/redirect/6?to=/pages/html-a-relative');
      expect(await send([target])).toEqual([{ target, status: 'failed', error: 'discovery failed: more than 5 redirects' }]);
    });

    it('sent when the target redirects 5 times', async () => {
      const target = server.url('/redirect/5?to=/pages/html-a-relative');
      expect(await send([target])).toMatchObject([
        { target, status: 'sent', endpoint: server.url('/webmention/202?case=html-a-relative') },
      ]);
    });

    it('failed when the target redirects to a non-http URL', async () => {
      const target = server.url(`/redirect/1?to=${encodeURIComponent('ftp://127.0.0.1/pages/html-a-relative')}`);
      expect(await send([target])).toEqual([{ target, status: 'failed', error: 'discovery failed: refusing ftp: URL' }]);
    });

    it('failed when the target answers 5xx', async () => {
      const target = server.url('/status/502');
      expect(await send([target])).toEqual([{ target, status: 'failed', error: 'discovery failed: target answered 502' }]);
    });

    it.each(['/pages/html-a-relative', 'ftp://127.0.0.1/x', 'not a url'])(
      'failed without a request when the target is %s',
      async (target) => {
        const before = server.requests.length;
        expect(await send([target])).toEqual([{ target, status: 'failed', error: 'not an absolute http(s) URL' }]);
        expect(server.requests.length).toBe(before);
      },
    );
  });

  describe('without private networks allowed', () => {
    let guarded: Outbound;
    beforeAll(() => {
      guarded = createOutbound({ allowPrivateNetworks: false, timeoutMs: 5_000 });
    });
    afterAll(() => guarded.close());

    it('failed, not thrown, for a loopback target; the others still get their result', async () => {
      const loopback = server.url('/pages/html-a-relative');
      const named = loopback.replace('127.0.0.1', 'localhost');
      const before = server.requests.length;
      const results = await sendWebmentions({ source: SOURCE, targets: [loopback, named], outbound: guarded });
      expect(results).toEqual([
        { target: loopback, status: 'failed', error: 'discovery failed: refusing to connect to 127.0.0.1: not a public address' },
        { target: named, status: 'failed', error: `discovery failed: refused address for ${new URL(named).host}` },
      ]);
      expect(server.requests.length).toBe(before);
    });

    it('one failed result for the source when its links cannot be read', async () => {
      const source = server.url('/pages/source-h-entry');
      expect(await sendWebmentions({ source, outbound: guarded })).toEqual([
        { target: source, status: 'failed', error: 'cannot read the source: refusing to connect to 127.0.0.1: not a public address' },
      ]);
    });
  });

  describe('batches', () => {
    it('gives one result per target, in the order given, duplicates dropped', async () => {
      const sent = server.url('/pages/html-a-absolute');
      const none = server.url('/pages/no-endpoint');
      const failing = advertising('/webmention/500');
      const results = await send([failing, sent, none, sent, failing]);
      expect(results.map((r) => [r.status, r.target])).toEqual([
        ['failed', failing],
        ['sent', sent],
        ['no-endpoint', none],
      ]);
    });

    it('reports progress before and after each target', async () => {
      const events: SendProgress[] = [];
      const targets = [server.url('/pages/html-a-relative'), server.url('/pages/no-endpoint')];
      await sendWebmentions({ source: SOURCE, targets, outbound, onProgress: (event) => events.push(event) });
      expect(events.map((e) => [e.kind, 'index' in e ? e.index : -1, 'total' in e ? e.total : -1])).toEqual([
        ['sending', 0, 2],
        ['done', 0, 2],
        ['sending', 1, 2],
        ['done', 1, 2],
      ]);
    });

    it('finishes the batch when the progress callback throws', async () => {
      const target = server.url('/pages/html-a-relative');
      const results = await sendWebmentions({
        source: SOURCE,
        targets: [target],
        outbound,
        onProgress: () => {
          throw new Error('display broke');
        },
      });
      expect(results).toMatchObject([{ target, status: 'sent' }]);
    });

    it('failed for every target when the source is not an http(s) URL, without a request', async () => {
      const before = server.requests.length;
      const target = server.url('/pages/html-a-relative');
      expect(await send([target], 'mailto:me@example.com')).toEqual([
        { target, status: 'failed', error: 'the source is not an absolute http(s) URL' },
      ]);
      expect(server.requests.length).toBe(before);
    });

    it('an empty target list gives no results', async () => {
      expect(await send([])).toEqual([]);
    });
  });

  describe('targets taken from the source page', () => {
    for (const fixture of sourceCases()) {
      it(`${fixture.it} (${fixture.name})`, async () => {
        expect(await findTargets(outbound, server.url(`/pages/${fixture.name}`))).toEqual(fixture.targets.map(server.fill));
      });
    }

    it('resolves the links against the source URL after redirects and leaves that URL out', async () => {
      const targets = await findTargets(outbound, server.url('/redirect/2?to=/pages/source-h-entry'));
      expect(targets).toEqual([server.url('/pages/html-link-absolute'), server.url('/pages/no-endpoint'), advertising('/webmention/500')]);
    });

    it('sends to every link of the first h-entry, with one result each', async () => {
      const source = server.url('/pages/source-h-entry');
      const events: SendProgress['kind'][] = [];
      const results = await sendWebmentions({ source, outbound, onProgress: (event) => events.push(event.kind) });
      expect(results).toEqual([
        {
          target: server.url('/pages/html-link-absolute'),
          status: 'sent',
          endpoint: server.url('/webmention/201?case=html-link-absolute'),
          httpStatus: 201,
        },
        { target: server.url('/pages/no-endpoint'), status: 'no-endpoint' },
        {
          target: advertising('/webmention/500'),
          status: 'failed',
          endpoint: server.url('/webmention/500'),
          httpStatus: 500,
          error: 'endpoint answered 500',
        },
      ]);
      expect(events[0]).toBe('reading-source');
      expect(server.received.map((r) => Object.fromEntries(new URLSearchParams(r.body)))).toEqual([
        { source, target: server.url('/pages/html-link-absolute') },
        { source, target: advertising('/webmention/500') },
      ]);
    });

    it('one failed result for the source when it answers 404', async () => {
      const source = server.url('/pages/missing-page');
      expect(await sendWebmentions({ source, outbound })).toEqual([
        { target: source, status: 'failed', error: 'cannot read the source: source answered 404' },
      ]);
    });

    it('no results for a source that is not HTML', async () => {
      expect(await sendWebmentions({ source: server.url('/pages/not-html'), outbound })).toEqual([]);
    });
  });
});
