/**
 * Elasticsearch and Redis outages as the domain's Unavailable error (README "Errors": 503
 * search_unavailable, 503 service_unavailable), so the HTTP layer maps them like any other.
 */
import { Unavailable } from '../core/errors.js';
import { isElasticsearchUnavailable } from './elasticsearch/client.js';
import { isRedisUnavailable } from './redis/client.js';
import { isRedisOutOfMemory } from './redis/memory.js';

/** Redis could not be reached (as opposed to refusing a command): for callers that map it themselves. */
export { isRedisUnavailable };

export function unavailableBackendOf(err: unknown): Unavailable | undefined {
  if (isElasticsearchUnavailable(err)) return new Unavailable('search', 'The search backend is unavailable; retry shortly.', 5);
  // Redis (queues, counters, tokens) unreachable: the write was not taken, so the client should retry.
  if (isRedisUnavailable(err)) {
    return new Unavailable('store', 'A backing store is temporarily unavailable; nothing was written. Retry shortly.', 5);
  }
  // At maxmemory under noeviction Redis refuses writes rather than evict nonces or tokens: the
  // caller is told nothing was written (issue 43), never a 500.
  if (isRedisOutOfMemory(err)) return new Unavailable('store', 'The service cannot store anything more right now; nothing was written. Retry later.', 30);
  return undefined;
}
