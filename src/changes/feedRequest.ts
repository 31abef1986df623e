/**
 * Strict query validation of the lifecycle reads (GET /discovery/changes and
 * GET /discovery/resources/{id}/history), with the same problem codes as the catalog reads: an
 * unknown parameter is `unknown_filter`, a bad or repeated value `invalid_filter_value` (every bad
 * one at once); the feed token itself is checked by ChangeTokenCodec (`invalid_cursor`).
 */
import type { FieldError } from '../core/errors.js';
import { parseLimit, rejectUnknown, throwIfAny } from '../core/queryParams.js';

export interface FeedRequest {
  since?: string;
  limit: number;
}

export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 1000;
/** History keeps this many events per listing; the read returns them all by default. */
export const HISTORY_MAX_LIMIT = 50;

export function parseFeedRequest(query: Record<string, unknown>): FeedRequest {
  rejectUnknown(query, ['since', 'limit']);
  const errors: FieldError[] = [];
  const request: FeedRequest = { limit: parseLimit(query.limit, FEED_MAX_LIMIT, FEED_DEFAULT_LIMIT, errors) };
  const since = query.since;
  if (since !== undefined) {
    if (typeof since !== 'string') errors.push({ path: 'since', message: 'must be given at most once' });
    else if (since === '') errors.push({ path: 'since', message: 'must not be empty (omit it to start from the beginning)' });
    else request.since = since;
  }
  throwIfAny(errors);
  return request;
}

export function parseHistoryRequest(query: Record<string, unknown>): { limit: number } {
  rejectUnknown(query, ['limit']);
  const errors: FieldError[] = [];
  const limit = parseLimit(query.limit, HISTORY_MAX_LIMIT, HISTORY_MAX_LIMIT, errors);
  throwIfAny(errors);
  return { limit };
}
