/**
 * What other catalogs and sellers' files say about a resource, read into one shape: the URL and
 * method the probe will fetch, and the source's own words about it (`claims`: service name, tags,
 * icon, quality), bounded in size. Nothing here is trusted: the probe's 402 decides whether a
 * resource is listed, and the claims stay the source's (provenance.discovered.claims), never the listing's.
 */
import { isObject } from '../core/json.js';
import type { Discovered } from '../shapes/listing.js';

export type Claims = NonNullable<Discovered['claims']>;

export interface ResourceClaim {
  resource: string;
  method: string;
  claims: Claims;
}

/** An entry that names nothing the probe can fetch, with why (the status and the counts say it). */
export interface SkippedEntry {
  resource?: string;
  reason: string;
}

const MAX_TEXT = 500;
const MAX_TAGS = 20;
const MAX_TAG = 60;
const MAX_QUALITY_JSON = 2048;

function text(value: unknown, max = MAX_TEXT): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, max) : undefined;
}

function firstText(...values: unknown[]): string | undefined {
  for (const value of values) {
    const found = text(value);
    if (found) return found;
  }
  return undefined;
}

function tagList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const tags = [...new Set(value.map((t) => text(t, MAX_TAG)).filter((t): t is string => t !== undefined))].slice(0, MAX_TAGS);
  return tags.length > 0 ? tags : undefined;
}

function httpUrl(value: unknown): string | undefined {
  const raw = text(value, 2048);
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/** Any JSON the upstream sent as its quality figure, kept only while small. */
function quality(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  const json = JSON.stringify(value);
  return json !== undefined && json.length <= MAX_QUALITY_JSON ? (JSON.parse(json) as unknown) : undefined;
}

/**
 * `lastUpdated` as upstreams send it: epoch seconds or milliseconds (a number or a string of
 * digits) or an ISO date string. Undefined for anything else.
 */
export function lastUpdatedIso(value: unknown): string | undefined {
  let ms: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) ms = value;
  else if (typeof value === 'string' && /^\d{9,16}(\.\d+)?$/.test(value.trim())) ms = Number(value.trim());
  else if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value.trim())) {
    const parsed = Date.parse(value.trim());
    return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
  }
  if (ms === undefined) return undefined;
  // Below 10^11 it can only be seconds (10^11 ms is 1973; 10^11 s is the year 5138).
  const date = new Date(ms < 1e11 ? ms * 1000 : ms);
  return Number.isNaN(date.getTime()) || date.getUTCFullYear() > 9999 ? undefined : date.toISOString();
}

const at = (value: unknown, key: string): unknown => (isObject(value) ? value[key] : undefined);

/** The HTTP method a discovery entry declares: v2 bazaar extension, v1 outputSchema, or a plain field. */
function declaredMethod(item: Record<string, unknown>): unknown {
  const accepts = Array.isArray(item.accepts) ? item.accepts[0] : undefined;
  return (
    at(at(at(at(item.extensions, 'bazaar'), 'info'), 'input'), 'method') ??
    at(at(at(accepts, 'outputSchema'), 'input'), 'method') ??
    item.method ??
    at(item.metadata, 'method')
  );
}

/**
 * One entry of an upstream's `items` (Bazaar v1 or v2, CDP's shape with `quality`, `serviceName`,
 * `tags`) or of a manifest's `items`: a claim, or why it is skipped.
 */
export function claimOfEntry(entry: unknown): ResourceClaim | SkippedEntry {
  if (!isObject(entry)) return { reason: 'not an object' };
  const resourceInfo = entry.resource;
  const resource = text(typeof resourceInfo === 'string' ? resourceInfo : at(resourceInfo, 'url') ?? entry.url, 2048);
  if (!resource) return { reason: 'names no resource URL' };
  const type = entry.type ?? 'http';
  if (type !== 'http') return { resource, reason: `type ${String(type).slice(0, 20)} is not probed (only http resources answer a 402 the probe can read)` };
  const method = declaredMethod(entry) ?? 'GET';
  if (typeof method !== 'string' || !/^[A-Za-z]{3,7}$/.test(method)) return { resource, reason: 'declares no usable HTTP method' };
  const metadata = isObject(entry.metadata) ? entry.metadata : {};
  const accepts = Array.isArray(entry.accepts) ? entry.accepts[0] : undefined;
  const claims: Claims = {};
  const serviceName = firstText(entry.serviceName, metadata.serviceName, metadata.provider, metadata.name);
  const description = firstText(entry.description, at(resourceInfo, 'description'), at(accepts, 'description'), metadata.description);
  const tags = tagList(entry.tags) ?? tagList(metadata.tags) ?? tagList(at(resourceInfo, 'tags'));
  const icon = httpUrl(entry.icon ?? entry.iconUrl ?? metadata.icon ?? metadata.iconUrl ?? metadata.logo);
  const score = quality(entry.quality ?? metadata.quality);
  const lastUpdated = lastUpdatedIso(entry.lastUpdated);
  if (serviceName) claims.serviceName = serviceName;
  if (description) claims.description = description;
  if (tags) claims.tags = tags;
  if (icon) claims.icon = icon;
  if (score !== undefined) claims.quality = score;
  if (lastUpdated) claims.lastUpdated = lastUpdated;
  return { resource, method: method.toUpperCase(), claims };
}

export const isClaim = (entry: ResourceClaim | SkippedEntry): entry is ResourceClaim => 'method' in entry;
