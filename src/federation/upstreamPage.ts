/**
 * One page of an upstream catalog's list (`GET .../discovery/resources`): the request for a page
 * (offset or cursor paging, as the upstream answered the page before) and the answer read into
 * claims, skipped entries and the request for the next page. Shapes read: the x402 Bazaar's
 * `{x402Version, items, pagination: {limit, offset, total}}` (v1 and v2 items, this service's own
 * /x402 surface included) and CDP's `/v2/x402/discovery/resources` (items with `quality`,
 * `serviceName`, `tags`; a cursor in `pagination` or beside it).
 */
import { isObject } from '../core/json.js';
import { claimOfEntry, isClaim, type ResourceClaim, type SkippedEntry } from './claims.js';

export type PageRequest = { offset: number } | { cursor: string };

export interface ParsedPage {
  claims: ResourceClaim[];
  skipped: SkippedEntry[];
  /** Absent on the last page. */
  next?: PageRequest;
  /** What the upstream says it holds, when it says so. */
  total?: number;
}

/** The answer is not a discovery list at all (HTML, an error object, a list without items). */
export class UpstreamShapeError extends Error {}

/** The URL of one page: the upstream's list URL (its own query kept) with the paging parameters. */
export function pageUrl(listUrl: string, request: PageRequest, pageSize: number): string {
  const url = new URL(listUrl);
  url.searchParams.set('limit', String(pageSize));
  if ('cursor' in request) {
    url.searchParams.delete('offset');
    url.searchParams.set('cursor', request.cursor);
  } else {
    url.searchParams.delete('cursor');
    url.searchParams.set('offset', String(request.offset));
  }
  return url.toString();
}

/** A stable key of a page request, under which its validators are kept. */
export function pageKey(request: PageRequest): string {
  return 'cursor' in request ? `c:${request.cursor.slice(0, 200)}` : `o:${request.offset}`;
}

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : typeof value === 'string' && /^\d{1,12}$/.test(value) ? Number(value) : undefined;

const cursorOf = (...values: unknown[]): string | undefined =>
  values.find((v): v is string => typeof v === 'string' && v.length > 0 && v.length <= 2048);

export function parseUpstreamPage(body: unknown, request: PageRequest, pageSize: number): ParsedPage {
  if (!isObject(body)) throw new UpstreamShapeError('the answer is not a JSON object');
  const items = Array.isArray(body.items) ? body.items : Array.isArray(body.resources) ? body.resources : undefined;
  if (!items) throw new UpstreamShapeError('the answer has no items list');
  const claims: ResourceClaim[] = [];
  const skipped: SkippedEntry[] = [];
  for (const item of items) {
    const entry = claimOfEntry(item);
    if (isClaim(entry)) claims.push(entry);
    else skipped.push(entry);
  }
  const pagination = isObject(body.pagination) ? body.pagination : {};
  const total = count(pagination.total) ?? count(body.total);
  const page: ParsedPage = { claims, skipped, ...(total !== undefined ? { total } : {}) };
  if (items.length === 0 || pagination.hasMore === false || body.hasMore === false) return page;
  const cursor = cursorOf(pagination.nextCursor, pagination.cursor, body.nextCursor, body.cursor);
  if (cursor !== undefined) {
    // The same cursor again would loop forever.
    if (!('cursor' in request) || request.cursor !== cursor) page.next = { cursor };
    return page;
  }
  if ('cursor' in request) return page; // a cursor-paged list that gave no next cursor has ended
  const offset = count(pagination.offset) ?? request.offset;
  const limit = count(pagination.limit) ?? pageSize;
  const nextOffset = offset + items.length;
  const more = total !== undefined ? nextOffset < total : items.length >= limit;
  if (more) page.next = { offset: nextOffset };
  return page;
}
