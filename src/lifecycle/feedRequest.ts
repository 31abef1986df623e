/**
 * Strict query validation of GET /discovery/changes, with the same problem codes as the catalog
 * reads: an unknown parameter is `unknown_filter`, a bad or repeated value `invalid_filter_value`
 * (every bad one at once); the token itself is checked by ChangeTokenCodec (`invalid_cursor`).
 */
import { ProblemError, type FieldError } from '../http/problem.js';

export interface FeedRequest {
  since?: string;
  limit: number;
}

export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 1000;
const ALLOWED = ['since', 'limit'];

export function parseFeedRequest(query: Record<string, unknown>): FeedRequest {
  const unknown = Object.keys(query).filter((name) => !ALLOWED.includes(name));
  if (unknown.length > 0) {
    throw new ProblemError(400, 'unknown_filter', `Unknown parameter: ${unknown.join(', ')}. Allowed: ${ALLOWED.join(', ')}.`, {
      errors: unknown.map((path) => ({ path, message: 'is not a known parameter' })),
    });
  }
  const errors: FieldError[] = [];
  const request: FeedRequest = { limit: FEED_DEFAULT_LIMIT };
  const { since, limit } = query;
  if (since !== undefined) {
    if (typeof since !== 'string') errors.push({ path: 'since', message: 'must be given at most once' });
    else if (since === '') errors.push({ path: 'since', message: 'must not be empty (omit it to start from the beginning)' });
    else request.since = since;
  }
  if (limit !== undefined) {
    const value = typeof limit === 'string' && /^\d{1,4}$/.test(limit) ? Number(limit) : NaN;
    if (value >= 1 && value <= FEED_MAX_LIMIT) request.limit = value;
    else errors.push({ path: 'limit', message: typeof limit === 'string' ? `must be an integer from 1 to ${FEED_MAX_LIMIT}` : 'must be given at most once' });
  }
  if (errors.length > 0) {
    throw new ProblemError(400, 'invalid_filter_value', `Invalid value for ${errors.map((e) => e.path).join(', ')}: ${errors[0]!.message}`, { errors });
  }
  return request;
}
