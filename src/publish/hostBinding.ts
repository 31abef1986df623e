/**
 * Which resource hosts a seller token may publish for. A bound entry is a host name, optionally
 * with a port (`api.example.com`, `127.0.0.1:8081`) or a leading wildcard (`*.example.com`, which
 * matches sub-domains only). An entry without a port matches every port of that host, so a seller
 * moving a server to another port needs no new token.
 */

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST_PATTERN = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*(?::(\\d{1,5}))?$`);
const IPV6_PATTERN = /^\[[0-9a-f:.]+\](?::(\d{1,5}))?$/;

/** Lower-cases and checks one bound-host entry; returns undefined when it is not a host. */
export function normalizeBoundHost(entry: string): string | undefined {
  const host = entry.trim().toLowerCase().replace(/\.$/, '');
  const match = HOST_PATTERN.exec(host) ?? IPV6_PATTERN.exec(host);
  if (!match) return undefined;
  if (match[1] !== undefined && Number(match[1]) > 65535) return undefined;
  return host;
}

function splitPort(host: string): { name: string; port?: string } {
  const ipv6 = /^(\[[^\]]+\])(?::(\d+))?$/.exec(host);
  if (ipv6) return ipv6[2] ? { name: ipv6[1]!, port: ipv6[2] } : { name: ipv6[1]! };
  const colon = host.lastIndexOf(':');
  return colon === -1 ? { name: host } : { name: host.slice(0, colon), port: host.slice(colon + 1) };
}

/** The `host[:port]` authority of an `mcp://` or `http(s)://` resource, lower-cased. */
export function resourceAuthority(resource: string): string | undefined {
  const match = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]+)/.exec(resource.trim());
  return match ? match[1]!.toLowerCase() : undefined;
}

export function hostIsBound(boundHosts: readonly string[], resourceHost: string): boolean {
  const target = splitPort(resourceHost.toLowerCase());
  return boundHosts.some((entry) => {
    const bound = splitPort(entry);
    if (bound.port !== undefined && bound.port !== target.port) return false;
    if (bound.name.startsWith('*.')) return target.name.endsWith(bound.name.slice(1));
    return bound.name === target.name;
  });
}
