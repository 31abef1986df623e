/**
 * Sellers' own files naming their paid resources, read into claims: `/.well-known/x402` as
 * x402scan reads it (`{version, resources: [url, ...]}`), as x402 PR 2646 proposes it (`{x402Version,
 * items: [discovery resource, ...]}`), and an OpenAPI document's operations marked with
 * `x-payment-info`. Only resources on the announced origin's host (or a subdomain) are claimed: a
 * file on one site cannot send the probe to another.
 */
import { isObject } from '../core/json.js';
import { claimOfEntry, isClaim, type Claims, type ResourceClaim, type SkippedEntry } from './claims.js';

export type ManifestShape = 'x402-resources' | 'x402-items' | 'openapi';

export interface ManifestContent {
  shape: ManifestShape;
  claims: ResourceClaim[];
  /** The first SKIPPED_SAMPLE skipped entries (a file of junk is counted, not kept: issue 43). */
  skipped: SkippedEntry[];
  skippedCount: number;
}

/** Skipped entries kept to show why; the rest are only counted. */
export const SKIPPED_SAMPLE = 10;

export class ManifestShapeError extends Error {}

const OPENAPI_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'] as const;

function sameSite(resource: string, origin: URL): boolean {
  try {
    const host = new URL(resource).hostname;
    return host === origin.hostname || host.endsWith(`.${origin.hostname}`);
  } catch {
    return false;
  }
}

function collect(entries: Array<ResourceClaim | SkippedEntry>, origin: URL, shape: ManifestShape): ManifestContent {
  const content: ManifestContent = { shape, claims: [], skipped: [], skippedCount: 0 };
  const skip = (entry: SkippedEntry) => {
    content.skippedCount += 1;
    if (content.skipped.length < SKIPPED_SAMPLE) content.skipped.push(entry.resource === undefined ? entry : { ...entry, resource: entry.resource.slice(0, 200) });
  };
  for (const entry of entries) {
    if (!isClaim(entry)) skip(entry);
    else if (!sameSite(entry.resource, origin)) skip({ resource: entry.resource, reason: `is not on ${origin.hostname}: a site's file names only its own resources` });
    else content.claims.push(entry);
  }
  return content;
}

/** A `/.well-known/x402` body, resolved against the manifest's own URL (relative entries allowed). */
export function parseWellKnown(body: unknown, manifestUrl: string): ManifestContent {
  const origin = new URL(manifestUrl);
  const absolute = (value: string): string | undefined => {
    try {
      return new URL(value, manifestUrl).toString();
    } catch {
      return undefined;
    }
  };
  const entryOf = (entry: unknown): ResourceClaim | SkippedEntry => {
    if (typeof entry !== 'string') return claimOfEntry(isObject(entry) && typeof entry.resource === 'string' ? { ...entry, resource: absolute(entry.resource) ?? entry.resource } : entry);
    const url = absolute(entry.trim());
    return url ? { resource: url, method: 'GET', claims: {} } : { resource: entry.slice(0, 200), reason: 'is not a URL' };
  };
  if (Array.isArray(body)) return collect(body.map(entryOf), origin, 'x402-resources');
  if (!isObject(body)) throw new ManifestShapeError('is not a JSON object');
  if (Array.isArray(body.items)) return collect(body.items.map(entryOf), origin, 'x402-items');
  if (Array.isArray(body.resources)) return collect(body.resources.map(entryOf), origin, 'x402-resources');
  throw new ManifestShapeError('names no resources (neither a resources nor an items list)');
}

/** The operations of an OpenAPI document that carry `x-payment-info`, at the document's first server. */
export function parseOpenApi(body: unknown, documentUrl: string): ManifestContent {
  if (!isObject(body) || (typeof body.openapi !== 'string' && typeof body.swagger !== 'string') || !isObject(body.paths)) {
    throw new ManifestShapeError('is not an OpenAPI document');
  }
  const origin = new URL(documentUrl);
  const server = Array.isArray(body.servers) && isObject(body.servers[0]) && typeof body.servers[0].url === 'string' ? body.servers[0].url : '/';
  let base: string;
  try {
    base = new URL(server, documentUrl).toString().replace(/\/$/, '');
  } catch {
    base = origin.origin;
  }
  const entries: Array<ResourceClaim | SkippedEntry> = [];
  for (const [path, item] of Object.entries(body.paths)) {
    if (!isObject(item)) continue;
    for (const method of OPENAPI_METHODS) {
      const operation = item[method];
      if (!isObject(operation) || operation['x-payment-info'] === undefined) continue;
      const resource = `${base}${path.startsWith('/') ? path : `/${path}`}`;
      if (path.includes('{')) {
        entries.push({ resource, reason: 'is a path template; the probe needs a concrete URL (announce one with its routeTemplate)' });
        continue;
      }
      const claims: Claims = {};
      const description = typeof operation.summary === 'string' ? operation.summary : operation.description;
      if (typeof description === 'string' && description.trim()) claims.description = description.trim().slice(0, 500);
      if (Array.isArray(operation.tags)) {
        const tags = operation.tags.filter((t): t is string => typeof t === 'string' && t.length <= 60).slice(0, 20);
        if (tags.length > 0) claims.tags = tags;
      }
      entries.push({ resource, method: method.toUpperCase(), claims });
    }
  }
  return collect(entries, origin, 'openapi');
}
