/**
 * Reads the whole live catalog in pages with a point-in-time and `search_after`, so an export sees
 * one consistent snapshot however long it takes and however many writes land meanwhile.
 */
import type { Client } from '@elastic/elasticsearch';
import type { ListingDocument } from '../listingDocument.js';
import { NOT_REMOVED } from './listingQueries.js';
import { withoutNulls } from './listingWriteState.js';
import { NOT_READ } from './listingStore.js';

interface ScannedHit {
  _source?: ListingDocument;
  fields?: { id?: unknown[] };
  sort?: Array<string | number>;
}

/**
 * Whole documents in id order (exports diff well), or only ids in index order: sorted on
 * `_shard_doc` alone, a page is the next documents of each shard, found without looking at the
 * others (in id order each page sorts every listing again: a million listings cost about 40 s of
 * Elasticsearch CPU), and the id comes from doc values, no stored document loaded.
 */
const SCANS: Record<'documents' | 'ids', Record<string, unknown>> = {
  documents: { sort: [{ id: 'asc' }, { _shard_doc: 'asc' }], _source: { excludes: NOT_READ } },
  ids: { sort: [{ _shard_doc: 'asc' }], _source: false, docvalue_fields: ['id'] },
};

async function* scanPages(client: Client, alias: string, pageSize: number, scan: 'documents' | 'ids'): AsyncGenerator<ScannedHit[]> {
  const pit = await client.openPointInTime({ index: alias, keep_alive: '2m' });
  let pitId = pit.id;
  let after: Array<string | number> | undefined;
  try {
    for (;;) {
      const response = await client.search<ListingDocument>({
        pit: { id: pitId, keep_alive: '2m' },
        size: pageSize,
        query: { bool: { must_not: [NOT_REMOVED] } },
        ...SCANS[scan],
        track_total_hits: false,
        ...(after ? { search_after: after } : {}),
      });
      pitId = response.pit_id ?? pitId;
      const hits = response.hits.hits as ScannedHit[];
      if (hits.length === 0) return;
      yield hits;
      after = hits[hits.length - 1]!.sort;
      if (hits.length < pageSize) return;
    }
  } finally {
    await client.closePointInTime({ id: pitId }).catch(() => undefined);
  }
}

export async function* scanLiveListings(client: Client, alias: string, pageSize = 1000): AsyncGenerator<ListingDocument[]> {
  for await (const hits of scanPages(client, alias, pageSize, 'documents')) {
    yield hits.flatMap((hit) => (hit._source ? [withoutNulls(hit._source)] : []));
  }
}

/** The ids of every live listing (the change feed seeder reads a whole catalog for them). */
export async function* scanLiveListingIds(client: Client, alias: string, pageSize = 1000): AsyncGenerator<string[]> {
  for await (const hits of scanPages(client, alias, pageSize, 'ids')) {
    yield hits.flatMap((hit) => {
      const id = hit.fields?.id?.[0];
      return typeof id === 'string' ? [id] : [];
    });
  }
}
