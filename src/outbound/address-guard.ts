/**
 * Which addresses the server may connect to when it fetches on a client's
 * behalf: public unicast only, unless private networks are allowed. Also how
 * a client's address is keyed by inbound throttles.
 * @module
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** Global unicast IPv6 (RFC 4291 2000::/3): everything outside it is special-purpose or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True for a public unicast address. IPv4 must be outside every range of
 * IANA's special-purpose registry (ipaddr.js names them: private, loopback,
 * link-local, shared 100.64/10, documentation, benchmarking, 240/4…). IPv6
 * must be inside global unicast 2000::/3 and outside its special ranges
 * (documentation, 6to4, Teredo, NAT64, ORCHID, SRv6…); an IPv4-mapped
 * address is judged as the IPv4 address it carries. Everything else —
 * IPv4-compatible `::/96` (`::7f00:1`), unique-local, link-local, multicast,
 * unspecified — is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
}

/**
 * The key a client address is counted under by inbound throttles: an IPv4
 * address as it is (also when IPv4-mapped), an IPv6 address by its /64
 * network, the smallest block one subscriber usually holds (counting single
 * IPv6 addresses would let one client rotate through 2^64 of them).
 */
export function clientAddressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

export class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDENADDRESS';
  constructor(host: string, address: string) {
    super(`refusing to connect to ${host} (${address}): not a public address`);
    this.name = 'ForbiddenAddressError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement for the socket connector: resolves, then
 * refuses the connection when any resolved address is not public. The check
 * runs for every connection, so every redirect hop is checked after DNS.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: Number(options.family ?? 0) as 0 | 4 | 6 }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const refused = allowPrivate ? undefined : list.find((entry) => !isPublicAddress(entry.address));
      if (refused !== undefined)
        return callback(new ForbiddenAddressError(hostname, refused.address) as unknown as NodeJS.ErrnoException, []);
      if (options.all === true) return callback(null, list);
      const first = list[0];
      if (first === undefined) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}
