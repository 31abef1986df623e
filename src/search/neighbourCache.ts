/**
 * The neighbour cache (docs/catalog-reads.md, "Neighbour cache"): a ranked search's nearest
 * neighbours in meaning, as its kNN search of its own found them, kept for `ttlMs`
 * (NEIGHBOUR_CACHE_MS; 0, the default, turns it off) and reused by every read that sends the same
 * kNN search: the search's later pages and the same query with the same filters from any client.
 * The kNN search costs Elasticsearch about
 * as much as a whole plain text query, whatever the vector format or segment count (lab journal
 * 2026-12-04-knn-cost.md), and it is the only part of a ranked search that depends on the query
 * vector alone: the words, prices, signals and filters are still read fresh on every request.
 *
 * What it trades: a listing published or re-described within `ttlMs` is found by its words at
 * once, by meaning once the entry expires. A listing removed or filtered out meanwhile is never
 * shown: the main query applies the read's filters and "not removed" itself. Pages of one search
 * read within `ttlMs` rank the same neighbours, so the kNN search's near ties cannot reorder them
 * between pages.
 *
 * The key is a digest of the whole kNN search body (vector, filters, k, candidates, similarity
 * floor, direction demotion), so a change of any of them, or of the model, is another entry. The
 * scores kept are Elasticsearch's raw kNN scores: `semantic.weight` and the fusion apply after,
 * so an operator's change of either applies to the next read.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { ReadCache, type CacheOutcome } from './readCache.js';

type Json = Record<string, unknown>;

/** A neighbour as the kNN search of its own returns it (store/elasticsearch/listingSearch.ts scoredIds). */
export interface ScoredId {
  readonly id: string;
  readonly score: number;
  readonly matched: readonly string[];
}

export class NeighbourCache {
  private readonly cache: ReadCache<readonly ScoredId[]>;

  constructor(ttlMs: number, capacity: number, clock?: Clock) {
    this.cache = new ReadCache(ttlMs, capacity, clock);
  }

  get enabled(): boolean {
    return this.cache.enabled;
  }

  /** The neighbours `search` finds: kept ones when the same search ran within `ttlMs`, else `load`'s (then kept). */
  find(search: Json, load: () => Promise<ScoredId[]>): Promise<{ value: readonly ScoredId[]; outcome: CacheOutcome }> {
    return this.cache.read(keyOf(search), async () => Object.freeze((await load()).map((n) => Object.freeze({ ...n, matched: Object.freeze([...n.matched]) }))));
  }
}

/** A digest of the body: the query vector alone is kilobytes of JSON, and thousands of entries are kept. */
function keyOf(search: Json): string {
  return createHash('sha256').update(JSON.stringify(search)).digest('base64url');
}
