/**
 * Finds live listings not seen since a cutoff (`lastSeen`: bumped by 402 reports, probes,
 * republishes and settlements), oldest first, in pages. A range on a date field plus
 * search_after stays cheap at 100,000 listings: only the stale tail is ever read.
 */
import type { Client } from '@elastic/elasticsearch';
import { NOT_REMOVED } from './listingQueries.js';

export interface StaleListingFinder {
  /** Ids of live listings with `lastSeen` before `cutoff`; pass the returned `next` to continue. */
  seenBefore(cutoff: Date, size: number, after?: unknown[]): Promise<{ ids: string[]; next?: unknown[] }>;
}

export class ElasticsearchStaleListingFinder implements StaleListingFinder {
  constructor(private readonly client: Client, private readonly alias: string) {}

  async seenBefore(cutoff: Date, size: number, after?: unknown[]): Promise<{ ids: string[]; next?: unknown[] }> {
    const response = await this.client.search<never>({
      index: this.alias,
      size,
      _source: false,
      track_total_hits: false,
      query: {
        bool: {
          filter: [{ range: { lastSeen: { lt: cutoff.toISOString() } } }],
          must_not: [NOT_REMOVED],
        },
      },
      sort: [{ lastSeen: 'asc' }, { id: 'asc' }],
      ...(after ? { search_after: after as never } : {}),
    });
    const hits = response.hits.hits;
    const ids = hits.map((hit) => hit._id).filter((id): id is string => typeof id === 'string');
    const last = hits[hits.length - 1];
    return hits.length === size && last?.sort ? { ids, next: last.sort } : { ids };
  }
}
