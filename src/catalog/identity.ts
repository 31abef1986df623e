/**
 * Listing identity (docs/catalog-write.md "Identity and stored fields"): seeing the same resource again must
 * land on the same listing, so ids are a hash of a canonical key, never random.
 */
import { createHash } from 'node:crypto';

export class InvalidResourceError extends Error {
  constructor(readonly resource: string, reason: string) {
    super(`resource ${JSON.stringify(resource)}: ${reason}`);
    this.name = 'InvalidResourceError';
  }
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * The authority as written, up to the first `/`, `\`, `?` or `#` (URL() reads a backslash as a
 * slash in http(s) URLs). Checked for userinfo on the raw text because URL() drops an empty one
 * (`https://@host/`) and `mcp://victim.example@tools.example/` must not be shown or bound as
 * either host (issue 9, defect 9).
 */
function carriesUserinfo(resource: string): boolean {
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:[\/\\]*([^/\\?#]*)/.exec(resource.trim())?.[1] ?? '';
  return authority.includes('@');
}

/** An MCP server authority: a host name or bracketed IPv6 address, optionally with a port. */
const MCP_AUTHORITY = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** `/users/:userId` (x402 routeTemplate, Express style) -> `/users/{userId}`. */
export function braceTemplate(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/**
 * Lower-case scheme and host, default port dropped, no query string or fragment, dynamic segments
 * as brace templates. `routeTemplate`, when given, replaces the concrete path.
 */
export function canonicalizeHttpUrl(resource: string, routeTemplate?: string): string {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new InvalidResourceError(resource, 'not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidResourceError(resource, 'must be http or https');
  if (!url.hostname) throw new InvalidResourceError(resource, 'has no host');
  if (url.username || url.password || carriesUserinfo(resource)) throw new InvalidResourceError(resource, 'must not carry credentials (user@)');
  const port = url.port && url.port !== DEFAULT_PORTS[url.protocol] ? `:${url.port}` : '';
  let path = routeTemplate && routeTemplate.startsWith('/') ? routeTemplate : url.pathname;
  // URL() percent-encodes braces; templates keep them literal.
  path = braceTemplate(path.replace(/%7B/gi, '{').replace(/%7D/gi, '}'));
  return `${url.protocol}//${url.hostname.toLowerCase()}${port}${path || '/'}`;
}

/** `mcp://Host/tool` -> `{ server: 'mcp://host', tool }`, lower-casing scheme and host only. */
export function canonicalizeMcpResource(resource: string, toolName: string): { resource: string; server: string } {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]+)(\/[^?#]*)?$/.exec(resource.trim());
  if (!match) throw new InvalidResourceError(resource, 'must be an mcp://<host>/<tool_name> URI');
  const scheme = match[1]!.toLowerCase();
  if (scheme !== 'mcp') throw new InvalidResourceError(resource, 'must use the mcp:// scheme');
  if (carriesUserinfo(resource)) throw new InvalidResourceError(resource, 'must not carry credentials (user@)');
  if (!MCP_AUTHORITY.test(match[2]!)) throw new InvalidResourceError(resource, 'must name the server by host name or address (and port)');
  const host = match[2]!.toLowerCase();
  const path = (match[3] ?? '').replace(/\/+$/, '');
  const segments = path.split('/').filter(Boolean);
  // The server is the URI without the tool segment, so tool name + server is the key whatever the form.
  if (segments[segments.length - 1] === toolName) segments.pop();
  const server = `${scheme}://${host}${segments.length ? `/${segments.join('/')}` : ''}`;
  return { resource: `${server}/${toolName}`, server };
}

export function httpCanonicalKey(method: string, canonicalUrl: string): string {
  return `${method.toUpperCase()} ${canonicalUrl}`;
}

export function mcpCanonicalKey(server: string, toolName: string): string {
  return `MCP ${server} ${toolName}`;
}

export function listingIdForKey(canonicalKey: string): string {
  return `lst_${createHash('sha256').update(canonicalKey).digest('hex').slice(0, 24)}`;
}

/** The id a listing will have, without writing anything (announce answers with it at once). */
export function httpListingId(resource: string, method = 'GET', routeTemplate?: string): string {
  return listingIdForKey(httpCanonicalKey(method, canonicalizeHttpUrl(resource, routeTemplate)));
}

export function mcpListingId(resource: string, toolName: string): string {
  return listingIdForKey(mcpCanonicalKey(canonicalizeMcpResource(resource, toolName).server, toolName));
}

/** A listing's canonical resource, canonical key and id, computed once per write. */
export interface CanonicalIdentity {
  resource: string;
  canonicalKey: string;
  id: string;
}

/** HTTP: method + canonical URL; MCP: server URI + tool name. Throws InvalidResourceError. */
export function canonicalIdentity(
  input: { type: 'http'; resource: string; method?: string; routeTemplate?: string } | { type: 'mcp'; resource: string; name: string },
): CanonicalIdentity {
  if (input.type === 'mcp') {
    const { resource, server } = canonicalizeMcpResource(input.resource, input.name);
    const canonicalKey = mcpCanonicalKey(server, input.name);
    return { resource, canonicalKey, id: listingIdForKey(canonicalKey) };
  }
  const resource = canonicalizeHttpUrl(input.resource, input.routeTemplate);
  const canonicalKey = httpCanonicalKey(input.method ?? 'GET', resource);
  return { resource, canonicalKey, id: listingIdForKey(canonicalKey) };
}
