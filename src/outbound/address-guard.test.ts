import { describe, expect, it } from 'vitest';
import { clientAddressKey, isPublicAddress } from './address-guard.js';

describe('isPublicAddress', () => {
  it.each([
    // issue 23 #13: IPv4-compatible IPv6 carrying loopback and the cloud metadata address
    '::7f00:1',
    '::a9fe:a9fe',
    '::127.0.0.1',
    // loopback, metadata and private networks in every spelling
    '127.0.0.1',
    '127.1.2.3',
    '169.254.169.254',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '0.0.0.0',
    '255.255.255.255',
    '100.64.0.1',
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '240.0.0.1',
    '224.0.0.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '::ffff:0:7f00:1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::a00:1',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001::1',
    '2001:db8::1',
    '3fff::1',
    '5f00::1',
    '100::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fec0::1',
    'ff02::1',
    '1234::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '::ffff:8.8.8.8', '2606:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888'])(
    'allows the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('clientAddressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:aaaa::1', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('keys %s as %s', (address, key) => {
    expect(clientAddressKey(address)).toBe(key);
  });
});

describe('the outbound fetcher', () => {
  it.each([
    'http://[::7f00:1]/',
    'http://[::a9fe:a9fe]/latest/meta-data/',
    'http://[64:ff9b::7f00:1]/',
    'http://[::ffff:7f00:1]/',
    'http://2130706433/',
  ])('refuses %s before connecting', async (url) => {
    const { createOutbound, OutboundError } = await import('./fetch.js');
    const outbound = createOutbound({ allowPrivateNetworks: false, timeoutMs: 2_000 });
    try {
      await expect(outbound.fetch(url)).rejects.toThrow(OutboundError);
      await expect(outbound.fetch(url)).rejects.toThrow(/not a public address/);
    } finally {
      await outbound.close();
    }
  });
});
