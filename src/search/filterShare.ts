/**
 * How much of the catalog a read's filters let through, for the plan of its kNN search
 * (queryBuilder's `nearestInput`). Elasticsearch's filtered HNSW search first gathers every listing
 * that passes the filter and then walks the graph past the ones that do not: at a million listings a
 * broad filter ("type=http", a network most sellers use) costs more than the search itself. Such a
 * filter is cheaper left to the query, with k scaled up by the inverse of its share so that about as
 * many neighbours pass it; a selective filter stays inside the kNN search, where it belongs.
 *
 * The share is of the listings the kNN search sees, those with an embedding (a removed listing
 * drops its vector). One count per distinct set of filters (and one of every embedded listing),
 * kept for a minute in a small LRU; a count already in flight is shared. A count that fails, or a
 * catalog with no embedding yet, leaves the filter inside the kNN search (the search itself
 * reports an unavailable index).
 */
import { systemClock, type Clock } from '../core/clock.js';
import { LruCache } from '../core/lruCache.js';
import { EMBEDDING_FIELD } from './semanticFusion.js';

type Json = Record<string, unknown>;

export interface ListingCounter {
  /** Listings (removed ones included or not, alike for every call) that the filter clauses match. */
  countMatching(filter: Json[]): Promise<number>;
}

const TTL_MS = 60_000;
const EMBEDDED = { exists: { field: EMBEDDING_FIELD } };

export class FilterShare {
  private readonly counts: LruCache<{ count: Promise<number | undefined>; at: number }>;

  constructor(
    private readonly counter: ListingCounter,
    private readonly now: Clock = systemClock,
    capacity = 1000,
  ) {
    this.counts = new LruCache(capacity);
  }

  /** The share (0..1] of embedded listings matching `filter`; undefined without filters, or when unknown. */
  async of(filter: readonly Json[]): Promise<number | undefined> {
    if (filter.length === 0) return undefined;
    const [matching, all] = await Promise.all([this.count(filter), this.count([])]);
    if (matching === undefined || all === undefined || all === 0) return undefined;
    // A listing written between the two counts may make `matching` exceed `all`; a filter matching
    // none is as selective as one listing (the share stays above 0: k is divided by it).
    return Math.max(Math.min(matching / all, 1), 1 / all);
  }

  private count(filter: readonly Json[]): Promise<number | undefined> {
    // The read plan builds a filter's clauses in one order (search/readClauses.ts): the same filters, the same JSON.
    const key = JSON.stringify(filter);
    const kept = this.counts.get(key);
    if (kept && this.now() - kept.at < TTL_MS) return kept.count;
    const count = this.counter.countMatching([...filter, EMBEDDED]).then(
      (n) => n,
      () => {
        this.counts.delete(key);
        return undefined;
      },
    );
    this.counts.set(key, { count, at: this.now() });
    return count;
  }
}
