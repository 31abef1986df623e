/**
 * Which addresses the probe may connect to. Announce is open to anyone, so without this check an
 * announce would make the service fetch its own loopback, the cloud metadata endpoint or a
 * neighbour on the private network (SSRF). Operators (and tests) allow-list exceptions.
 */
import { BlockList, isIP } from 'node:net';
import { unmapIPv4 } from '../core/ipAddress.js';

/** Ranges no public seller lives in (IANA special-purpose registries, v4 and v6). */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const BLOCKED_V6: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback and the deprecated v4-compatible form (::127.0.0.1)
  ['64:ff9b::', 96], // NAT64: embeds a v4 address we cannot vouch for
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds a v4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [net, prefix] of BLOCKED_V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of BLOCKED_V6) blocked.addSubnet(net, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const plain = unmapIPv4(address.replace(/^\[|\]$/g, ''));
  const family = isIP(plain);
  if (family === 0) return false;
  return !blocked.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

export class AllowListError extends Error {}

/**
 * Operator exceptions, from a comma-separated list: CIDRs (`127.0.0.0/8`, `::1/128`) allow any
 * port on those addresses; `host:port` (`127.0.0.1:4021`, `[::1]:8080`, `seller.internal:8080`)
 * allows one port, matched against the address connected to or the URL's host name.
 */
export class ProbeAllowList {
  private readonly ranges = new BlockList();
  private readonly endpoints = new Set<string>();
  private rangeCount = 0;

  constructor(entries: string[]) {
    for (const raw of entries) {
      const entry = raw.trim();
      if (!entry) continue;
      const cidr = /^([^/]+)\/(\d{1,3})$/.exec(entry);
      if (cidr) {
        const family = isIP(cidr[1]!);
        const prefix = Number(cidr[2]);
        if (family === 0 || prefix > (family === 4 ? 32 : 128)) throw new AllowListError(`"${entry}" is not a valid CIDR`);
        this.ranges.addSubnet(cidr[1]!, prefix, family === 4 ? 'ipv4' : 'ipv6');
        this.rangeCount += 1;
        continue;
      }
      const hostPort = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
      if (!hostPort || Number(hostPort[2]) > 65535) {
        throw new AllowListError(`"${entry}" is neither a CIDR (10.0.0.0/8) nor host:port (127.0.0.1:4021)`);
      }
      this.endpoints.add(endpointKey(hostPort[1]!, Number(hostPort[2])));
    }
  }

  static parse(value: string): ProbeAllowList {
    return new ProbeAllowList(value.split(','));
  }

  get isEmpty(): boolean {
    return this.rangeCount === 0 && this.endpoints.size === 0;
  }

  allows(address: string, port: number, hostname: string): boolean {
    const plain = unmapIPv4(address);
    const family = isIP(plain);
    if (family !== 0 && this.rangeCount > 0 && this.ranges.check(plain, family === 4 ? 'ipv4' : 'ipv6')) return true;
    return this.endpoints.has(endpointKey(plain, port)) || this.endpoints.has(endpointKey(hostname, port));
  }
}

function endpointKey(host: string, port: number): string {
  return `${host.replace(/^\[|\]$/g, '').toLowerCase()}|${port}`;
}

/** The probe may connect to `address` when it is public or the operator allowed it. */
export function mayConnect(address: string, port: number, hostname: string, allowList: ProbeAllowList): boolean {
  return isPublicAddress(address) || allowList.allows(address, port, hostname);
}
