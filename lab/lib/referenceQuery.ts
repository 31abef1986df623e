/**
 * The fixed reference query of the search benchmarks (docs/catalog-reads.md, "Cost"): a plain
 * `multi_match` of the typed words over the listing's title and description fields (HTTP
 * `describe.*`, MCP `name`/`description`), with the read's own filters and page size, and nothing
 * else: no synonyms, typo pass, phrases, kNN, text quality or factor functions.
 *
 * Every workload's Elasticsearch CPU per request is reported as a multiple of this query's, measured
 * in the same run on the same index, so a ratio cannot hide growth of the baseline itself. It is
 * written here, not built by the service's query builder, so that no ranking change can move it;
 * its query-side analyzer is pinned to `standard` and the index-side analysis of its four fields
 * is pinned by test/unit/reference-query.test.ts.
 */
import { planRead, shippedRanking } from '../../src/door.js';
import type { ReadRequest } from '../../src/door.js';

export const REFERENCE_FIELDS = ['describe.title', 'describe.description', 'name', 'description'] as const;

/** The URL parameters a plain search is sent with: the same response fields as the service reads. */
export const REFERENCE_PARAMS = { filter_path: 'hits.hits._source,hits.hits.sort' };

export function referenceSearchBody(request: ReadRequest): Record<string, unknown> {
  if (request.kind !== 'search' || request.q === undefined) throw new Error('the reference query needs a ranked search with q');
  // The read's own filters and fields, as the service plans them; nothing of its ranking.
  const { filters, sourceFields } = planRead(request, { settings: shippedRanking(), tunables: 0, now: 0 });
  const { filter, must_not } = filters;
  return {
    size: request.limit + 1,
    sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
    _source: { includes: sourceFields },
    track_total_hits: false,
    query: {
      bool: {
        must: [{ multi_match: { query: request.q, fields: [...REFERENCE_FIELDS], analyzer: 'standard' } }],
        filter,
        must_not,
      },
    },
  };
}
