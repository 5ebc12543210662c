import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutbound, OutboundError, type Outbound } from '../../src/outbound/fetch.js';
import { discoverEndpoint } from '../../src/webmention/discover.js';
import { discoveryCases, startFixtureServer, type FixtureServer } from '../fixtures/webmention-send/server.js';

describe('discoverEndpoint', () => {
  let server: FixtureServer;
  let outbound: Outbound;

  beforeAll(async () => {
    server = await startFixtureServer();
    outbound = createOutbound({ allowPrivateNetworks: true, timeoutMs: 5_000 });
  });
  afterAll(async () => {
    await outbound.close();
    await server.close();
  });

  for (const fixture of discoveryCases()) {
    it(`${fixture.it} (${fixture.name})`, async () => {
      const discovered = await discoverEndpoint(outbound, server.url(`/pages/${fixture.name}`));
      expect(discovered).toEqual({
        endpoint: fixture.endpoint === null ? null : server.url(fixture.endpoint),
        finalUrl: server.url(`/pages/${fixture.name}`),
      });
    });
  }

  it('resolves a relative <link> endpoint against the final URL after a redirect', async () => {
    const discovered = await discoverEndpoint(outbound, server.url('/redirect/1?to=/pages/html-link-page-relative'));
    expect(discovered).toEqual({
      endpoint: server.url('/pages/endpoint?case=html-link-page-relative'),
      finalUrl: server.url('/pages/html-link-page-relative'),
    });
  });

  it('resolves a relative Link header endpoint against the final URL after a redirect', async () => {
    const discovered = await discoverEndpoint(outbound, server.url('/redirect/2?code=301&to=/pages/link-header-page-relative'));
    expect(discovered).toEqual({
      endpoint: server.url('/pages/endpoint?case=link-header-page-relative'),
      finalUrl: server.url('/pages/link-header-page-relative'),
    });
  });

  it('takes an empty href as the final page, not the URL first asked for', async () => {
    const discovered = await discoverEndpoint(outbound, server.url('/redirect/1?code=307&to=/pages/html-empty-href'));
    expect(discovered.endpoint).toBe(server.url('/pages/html-empty-href'));
  });

  it('follows 5 redirects', async () => {
    const discovered = await discoverEndpoint(outbound, server.url('/redirect/5?to=/pages/html-a-relative'));
    expect(discovered).toEqual({
      endpoint: server.url('/webmention/202?case=html-a-relative'),
      finalUrl: server.url('/pages/html-a-relative'),
    });
  });

  it('refuses a 6th redirect', async () => {
    const failure = discoverEndpoint(outbound, server.url('/redirect/6?to=/pages/html-a-relative'));
    await expect(failure).rejects.toBeInstanceOf(OutboundError);
    await expect(failure).rejects.toThrow(/more than 5 redirects/);
  });

  it.each(['ftp://127.0.0.1/pages/html-a-relative', 'file:///etc/passwd', 'data:text/html,<link rel=webmention href=http://127.0.0.1/>'])(
    'refuses a redirect to %s',
    async (location) => {
      const failure = discoverEndpoint(outbound, server.url(`/redirect/1?to=${encodeURIComponent(location)}`));
      await expect(failure).rejects.toBeInstanceOf(OutboundError);
      await expect(failure).rejects.toThrow(/^refusing [a-z]+: URL$/);
    },
  );

  it.each(['header', 'head'])(
    'finds the endpoint of a 2 MiB page that advertises it in its %s (the body is cut at the limit, not refused)',
    async (where) => {
      const endpoint = server.url(`/webmention/202?case=large-${where}`);
      const discovered = await discoverEndpoint(
        outbound,
        server.url(`/large?bytes=${2 * 1024 * 1024}&in=${where}&endpoint=${encodeURIComponent(endpoint)}`),
      );
      expect(discovered.endpoint).toBe(endpoint);
    },
  );

  it('fails, retryably, when the target answers 5xx', async () => {
    const failure = discoverEndpoint(outbound, server.url('/status/503'));
    await expect(failure).rejects.toMatchObject({ name: 'OutboundError', transient: true, message: 'target answered 503' });
  });

  it('still reads the endpoint of a 4xx page', async () => {
    const discovered = await discoverEndpoint(outbound, server.url('/status/410'));
    expect(discovered.endpoint).toBe(server.url('/webmention/202?case=status'));
  });

  describe('without private networks allowed', () => {
    let guarded: Outbound;
    beforeAll(() => {
      guarded = createOutbound({ allowPrivateNetworks: false, timeoutMs: 5_000 });
    });
    afterAll(() => guarded.close());

    it('refuses a loopback IP literal without connecting', async () => {
      const before = server.requests.length;
      const failure = discoverEndpoint(guarded, server.url('/pages/html-a-relative'));
      await expect(failure).rejects.toMatchObject({
        name: 'OutboundError',
        transient: false,
        message: 'refusing to connect to 127.0.0.1: not a public address',
      });
      expect(server.requests.length).toBe(before);
    });

    it('refuses a host name that resolves to loopback without sending a request', async () => {
      const before = server.requests.length;
      const url = new URL(server.url('/pages/html-a-relative'));
      url.hostname = 'localhost';
      const failure = discoverEndpoint(guarded, url.href);
      await expect(failure).rejects.toMatchObject({ name: 'OutboundError', transient: false, message: `refused address for ${url.host}` });
      expect(server.requests.length).toBe(before);
    });
  });
});
