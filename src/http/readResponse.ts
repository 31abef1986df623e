/**
 * How catalog reads are sent (docs/catalog-reads.md "Read cache and compression"): JSON without Express's ETag
 * (pages drift with every write and signal flush, so hashing each body for conditional requests
 * costs CPU on the hottest path and would rarely answer 304), and marked reusable for a second by
 * caches in front of the service, the lifetime of its own read cache (search/readCache.ts).
 */
import type { Response } from 'express';

export const READ_CACHE_CONTROL = 'public, max-age=1';

export function sendRead(res: Response, page: unknown): void {
  const body = JSON.stringify(page);
  res.status(200).set({
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': READ_CACHE_CONTROL,
  });
  res.end(body);
}
