/**
 * Which addresses the server may connect to when it fetches on a client's
 * behalf: public unicast only, unless private networks are allowed.
 * @module
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

/** True for a public unicast address (not private, loopback, link-local, unique-local, multicast, reserved…). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
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
      if (refused !== undefined) return callback(new ForbiddenAddressError(hostname, refused.address) as unknown as NodeJS.ErrnoException, []);
      if (options.all === true) return callback(null, list);
      const first = list[0];
      if (first === undefined) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}
