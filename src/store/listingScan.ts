/**
 * Reads the whole live catalog in pages with a point-in-time and `search_after`, so an export sees
 * one consistent snapshot however long it takes and however many writes land meanwhile.
 */
import type { Client } from '@elastic/elasticsearch';
import type { ListingDocument } from './listingDocument.js';
import { NOT_REMOVED } from './listingQueries.js';
import { withoutNulls } from './listingStore.js';

export async function* scanLiveListings(client: Client, alias: string, pageSize = 1000): AsyncGenerator<ListingDocument[]> {
  const pit = await client.openPointInTime({ index: alias, keep_alive: '2m' });
  let pitId = pit.id;
  let after: Array<string | number> | undefined;
  try {
    for (;;) {
      const response = await client.search<ListingDocument>({
        pit: { id: pitId, keep_alive: '2m' },
        size: pageSize,
        query: { bool: { must_not: [NOT_REMOVED] } },
        // Stable page order inside the snapshot; id order makes exports diff-friendly.
        sort: [{ id: 'asc' }, { _shard_doc: 'asc' }] as never,
        track_total_hits: false,
        ...(after ? { search_after: after } : {}),
      });
      pitId = response.pit_id ?? pitId;
      const hits = response.hits.hits;
      if (hits.length === 0) return;
      yield hits.flatMap((hit) => (hit._source ? [withoutNulls(hit._source)] : []));
      after = hits[hits.length - 1]!.sort as Array<string | number>;
      if (hits.length < pageSize) return;
    }
  } finally {
    await client.closePointInTime({ id: pitId }).catch(() => undefined);
  }
}
