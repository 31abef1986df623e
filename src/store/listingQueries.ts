/**
 * The Elasticsearch queries over the listing index: the clause every read shares ("live listings
 * only"), and a validated catalog read turned into the search body. The same builder serves the
 * API and the benchmark (which sends these bodies straight to Elasticsearch), so both measure one
 * query.
 */
import type { ListingType, Scheme } from '../shapes/listing.js';
import type { RankingSettings } from './rankingTunables.js';

/** A `search_after` value: a sort key of the last hit of a page. */
export type SortValue = string | number;

export type SearchSort = 'rank' | 'price' | 'recent';

export interface CatalogFilters {
  network?: string;
  type?: ListingType;
  /** Base-10 integer string without leading zeros; absent when no ceiling applies. */
  maxPrice?: string;
  asset?: string;
  scheme?: Scheme;
  payTo?: string;
  capability?: string;
}

export interface ReadRequest {
  /** resources: structured browse; search: ranked free text (/mcp/tools is search with type=mcp). */
  kind: 'resources' | 'search';
  q?: string;
  /** Only for search; resources always lists newest first. */
  sort?: SearchSort;
  explain: boolean;
  limit: number;
  cursor?: string;
  /**
   * Listings to skip before the page (the x402 Bazaar surface's `offset`, bounded there); never
   * together with `cursor`. The service's own reads page with cursors only.
   */
  offset?: number;
  /** Count every match (`hits.total`); off by default, the count costs a pass over all matches. */
  countTotal?: boolean;
  filters: CatalogFilters;
}

/** Removed listings stay stored (for the announce status) but no read returns them. */
export const NOT_REMOVED = { term: { removed: true } } as const;

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
/**
 * /discovery/resources: exactly the index sort of mappings/listings.json (firstSeen desc, id asc,
 * missing values last), so Elasticsearch reads each segment in that order and stops after
 * `limit + 1` matches instead of sorting every match (docs/catalog-reads.md, "Cost"). Every
 * stored listing has a firstSeen (the write path sets it), so `_last` never reaches a cursor.
 */
const RESOURCES_ORDER = [{ firstSeen: { order: 'desc' } }, ID];

export function sortFor(request: ReadRequest): Json[] {
  if (request.kind === 'resources') return RESOURCES_ORDER;
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
  return { filter, must_not: [NOT_REMOVED] };
}

/** Names under which explain=1 reads Elasticsearch's score of each factor (see explain.ts). */
export const FACTOR_NAMES = { relevance: 'relevance', price: 'priceBoost', recency: 'recencyBoost' } as const;

function rankingParts(q: string, settings: RankingSettings, now: number) {
  const fields = Object.entries(settings.fields)
    .filter(([, boost]) => boost > 0)
    .map(([field, boost]) => `${field}^${boost}`);
  const { price, recency } = settings;
  const settled = { exists: { field: 'signals.lastSettled' } };
  return {
    text: { query: q, fields, type: 'best_fields', tie_breaker: 0.3 },
    price: [{ [price.function]: { 'payment.amount': { origin: price.origin, scale: price.scale, offset: price.offset, decay: price.decay } } }],
    // Mutually exclusive filters: every listing gets exactly one recency factor.
    recency: [
      {
        filter: settled,
        [recency.function]: { 'signals.lastSettled': { origin: now, scale: recency.scale, offset: recency.offset, decay: recency.decay } },
      },
      { filter: { bool: { must_not: settled } }, weight: recency.neverSettled },
    ],
  };
}

/** ONE function_score: BM25 (multi_match with the boosts) x price decay x recency decay. */
export function rankedQuery(q: string, settings: RankingSettings, now: number, named = false): Json {
  const parts = rankingParts(q, settings, now);
  return {
    function_score: {
      query: { multi_match: named ? { ...parts.text, _name: FACTOR_NAMES.relevance } : parts.text },
      functions: [...parts.price, ...parts.recency],
      score_mode: 'multiply',
      boost_mode: 'multiply',
    },
  };
}

/**
 * explain=1 only: the price and recency functions of the ranked query again, each alone over
 * match_all and named, as a post_filter (no effect on matching: they match every document; none
 * on the score: filters do not score). With include_named_queries_score Elasticsearch reports, per
 * hit, the score of each: the factors it multiplied into `_score`.
 */
function factorProbes(q: string, settings: RankingSettings, now: number): Json {
  const parts = rankingParts(q, settings, now);
  const probe = (name: string, functions: Json[]) => ({
    function_score: { query: { match_all: {} }, functions, score_mode: 'multiply', boost_mode: 'replace', _name: name },
  });
  // A conjunction: as `should` clauses Elasticsearch iterated them for every document (3-4x the search).
  return { bool: { filter: [probe(FACTOR_NAMES.price, parts.price), probe(FACTOR_NAMES.recency, parts.recency)] } };
}

export interface PageOptions {
  searchAfter?: SortValue[];
  /** Epoch ms: the recency origin, pinned across the pages of one search. */
  now: number;
}

export function buildSearchBody(
  request: ReadRequest,
  settings: RankingSettings,
  page: PageOptions,
  sourceFields: readonly string[] = LISTING_SOURCE_FIELDS,
): Json {
  const { filter, must_not } = filterClauses(request.filters);
  const body: Json = {
    size: request.limit + 1, // one extra hit tells whether a next page exists
    sort: sortFor(request),
    _source: { includes: sourceFields },
    track_total_hits: request.countTotal === true,
  };
  if (request.offset) body.from = request.offset;
  if (request.kind === 'search' && request.q !== undefined) {
    body.query = { bool: { must: [rankedQuery(request.q, settings, page.now, request.explain)], filter, must_not } };
    // A post_filter: it only checks hits the query already matched, and leaves the ranked query as
    // the plain search runs it (only its text query gets a name).
    if (request.explain) body.post_filter = factorProbes(request.q, settings, page.now);
  } else {
    body.query = { bool: { filter, must_not } };
  }
  // sort=recent does not sort on _score; explain still reports the score of every hit.
  if (request.explain && request.sort === 'recent') body.track_scores = true;
  if (page.searchAfter) body.search_after = page.searchAfter;
  return body;
}

/** URL parameters of the search: only the response fields the service reads leave Elasticsearch. */
export function searchParamsFor(request: ReadRequest): { filter_path: string; include_named_queries_score?: boolean } {
  const total = request.countTotal ? ',hits.total' : '';
  if (!request.explain) return { filter_path: `hits.hits._source,hits.hits.sort${total}` };
  return { filter_path: `hits.hits._source,hits.hits.sort,hits.hits._score,hits.hits.matched_queries${total}`, include_named_queries_score: true };
}
