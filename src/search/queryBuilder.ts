/**
 * Turns a validated read into the Elasticsearch search body. The same builder serves the API and
 * the benchmark (which sends these bodies straight to Elasticsearch), so both measure one query.
 */
import type { CatalogFilters, ReadRequest } from './readRequest.js';
import type { RankingSettings } from './rankingSettings.js';
import type { SortValue } from './cursor.js';

type Json = Record<string, unknown>;

/** Only what `toListing` reads: Elasticsearch sends less, Node parses less. */
export const LISTING_SOURCE_FIELDS = [
  'id', 'type', 'resource', 'name', 'description', 'inputSchema', 'outputSchema', 'tags', 'payment', 'describe', 'signals',
];

/**
 * Dates sort with `missing: 0` rather than `_last`: Elasticsearch returns `_last` as Long.MIN_VALUE,
 * which it then refuses to parse back as a date in `search_after`. Epoch 0 sorts last in
 * descending order all the same.
 */
const NEWEST_FIRST_SEEN = { firstSeen: { order: 'desc', missing: 0 } };
const ID = { id: { order: 'asc' } };

export function sortFor(request: ReadRequest): Json[] {
  if (request.kind === 'resources') return [NEWEST_FIRST_SEEN, ID];
  switch (request.sort) {
    case 'price':
      return [{ 'payment.amount': { order: 'asc' } }, { _score: { order: 'desc' } }, ID];
    case 'recent':
      return [{ 'signals.lastSettled': { order: 'desc', missing: 0 } }, NEWEST_FIRST_SEEN, ID];
    default:
      return [{ _score: { order: 'desc' } }, ID];
  }
}

export function filterClauses(filters: CatalogFilters): { filter: Json[]; must_not: Json[] } {
  const filter: Json[] = [];
  if (filters.type) filter.push({ term: { type: filters.type } });
  if (filters.network) filter.push({ term: { 'payment.network': filters.network } });
  // A string keeps integers above 2^53 exact: Elasticsearch parses it as a long.
  if (filters.maxPrice !== undefined) filter.push({ range: { 'payment.amount': { lte: filters.maxPrice } } });
  if (filters.asset) filter.push({ term: { 'payment.asset': filters.asset } });
  if (filters.scheme) filter.push({ term: { 'payment.scheme': filters.scheme } });
  if (filters.payTo) filter.push({ term: { 'payment.payTo': filters.payTo } });
  if (filters.capability) {
    filter.push({
      bool: { should: [{ term: { 'describe.tags': filters.capability } }, { term: { tags: filters.capability } }], minimum_should_match: 1 },
    });
  }
  return { filter, must_not: [{ term: { removed: true } }] };
}

/**
 * ONE function_score: BM25 (multi_match with the boosts) x price decay x recency decay. The two
 * recency functions are mutually exclusive filters, so every hit gets exactly two factors: price
 * first, then recency (decayed lastSettled, or the flat never-settled weight).
 */
export function rankedQuery(q: string, settings: RankingSettings, now: number): Json {
  const fields = Object.entries(settings.fields)
    .filter(([, boost]) => boost > 0)
    .map(([field, boost]) => `${field}^${boost}`);
  const { price, recency } = settings;
  const settled = { exists: { field: 'signals.lastSettled' } };
  return {
    function_score: {
      query: { multi_match: { query: q, fields, type: 'best_fields', tie_breaker: 0.3 } },
      functions: [
        { [price.function]: { 'payment.amount': { origin: price.origin, scale: price.scale, offset: price.offset, decay: price.decay } } },
        {
          filter: settled,
          [recency.function]: {
            'signals.lastSettled': { origin: now, scale: recency.scale, offset: recency.offset, decay: recency.decay },
          },
        },
        { filter: { bool: { must_not: settled } }, weight: recency.neverSettled },
      ],
      score_mode: 'multiply',
      boost_mode: 'multiply',
    },
  };
}

export interface PageOptions {
  searchAfter?: SortValue[];
  /** Epoch ms: the recency origin, pinned across the pages of one search. */
  now: number;
}

export function buildSearchBody(request: ReadRequest, settings: RankingSettings, page: PageOptions): Json {
  const { filter, must_not } = filterClauses(request.filters);
  const body: Json = {
    size: request.limit + 1, // one extra hit tells whether a next page exists
    sort: sortFor(request),
    _source: { includes: LISTING_SOURCE_FIELDS },
    track_total_hits: false,
  };
  if (request.kind === 'search' && request.q !== undefined) {
    body.query = { bool: { must: [rankedQuery(request.q, settings, page.now)], filter, must_not } };
  } else {
    body.query = { bool: { filter, must_not } };
  }
  if (request.explain) {
    body.explain = true;
    // sort=recent does not sort on _score; explain still reports the score of every hit.
    body.track_scores = true;
  }
  if (page.searchAfter) body.search_after = page.searchAfter;
  return body;
}

/** Response fields the service reads; everything else stays in Elasticsearch. */
export function filterPathFor(request: ReadRequest): string {
  const paths = ['hits.hits._source', 'hits.hits.sort'];
  if (request.explain) paths.push('hits.hits._score', 'hits.hits._explanation');
  return paths.join(',');
}
