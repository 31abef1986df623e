/**
 * How catalog reads are sent (docs/catalog-reads.md "Read cache and compression"): JSON without Express's ETag
 * (pages drift with every write and signal flush, so hashing each body for conditional requests
 * costs CPU on the hottest path and would rarely answer 304), and marked reusable for a second by
 * caches in front of the service, the lifetime of its own read cache (search/readCache.ts).
 */
import type { Response } from 'express';

export const READ_CACHE_CONTROL = 'public, max-age=1';

export function sendRead(res: Response, page: unknown): void {
  // Encoded once: its length and what is written are the same bytes.
  const body = Buffer.from(JSON.stringify(page));
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
  res.setHeader('Cache-Control', READ_CACHE_CONTROL);
  res.end(body);
}
