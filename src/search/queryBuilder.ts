/**
 * Turns a validated read into the Elasticsearch search body. The same builder serves the API and
 * the benchmarks (which send these bodies straight to Elasticsearch), so both measure one query.
 * A ranked search is read one of three ways (search/catalogSearch.ts decides which):
 * - `window`: the text query's best `window` matches rescored with the factors, read by position
 *   (no sort: Elasticsearch refuses one with a rescore);
 * - `tail`: past the window, the exact ranking of the other matches, paged with search_after;
 * - exact (neither): every match scored with every factor (sort=price, sort=recent, no window).
 */
import type { CatalogFilters, ReadRequest } from './readRequest.js';
import type { RankingSettings } from './rankingSettings.js';
import type { SortValue } from './cursor.js';
import type { QueryVector } from '../semantic/queryEmbeddings.js';
import { NOT_REMOVED } from '../store/elasticsearch/listingQueries.js';
import { semanticDirections, textQuery } from './textQuery.js';
import { nearestSearchBody, type FusedNeighbour, type NearestInput, type SemanticInput } from './semanticFusion.js';
import { payableClause } from './payableQuery.js';
import { factorProbes, factorRescore, rankedQuery } from './rankingFactors.js';

type Json = Record<string, unknown>;

/** The listing's 7-day health uptime (absent until it was checked once). */
const UPTIME = 'signals.health.uptime7d';

/** Only what `toListing` reads: Elasticsearch sends less, Node parses less. */
export const LISTING_SOURCE_FIELDS = [
  'id', 'type', 'resource', 'name', 'title', 'description', 'iconUrl', 'inputSchema', 'outputSchema', 'tags', 'payment', 'describe', 'signals', 'provenance',
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
 * `limit + 1` matches instead of sorting every match (docs/elasticsearch-cluster.md, "Cost as the
 * catalog grows"). Every
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
  // A listing never checked has no uptime and so does not pass (docs/health.md).
  if (filters.minUptime !== undefined && filters.minUptime > 0) filter.push({ range: { [UPTIME]: { gte: filters.minUptime } } });
  if (filters.capability) {
    filter.push({
      bool: { should: [{ term: { 'describe.tags': filters.capability } }, { term: { tags: filters.capability } }], minimum_should_match: 1 },
    });
  }
  const payable = payableClause(filters);
  if (payable) filter.push(payable);
  return { filter, must_not: [NOT_REMOVED] };
}

/**
 * The rank window applies to sort=rank only (the other sorts order by a field, and Elasticsearch
 * refuses a rescore with a sort), and not to offset reads (the Bazaar surface pages by position).
 */
export function rankWindowOf(request: ReadRequest, settings: RankingSettings): number {
  const ranked = request.kind === 'search' && request.q !== undefined && (request.sort ?? 'rank') === 'rank' && !request.offset;
  return ranked ? settings.window : 0;
}

function modelFilter(vector: QueryVector): Json[] {
  return vector.otherModelsStored ? [{ term: { embeddingModel: vector.model } }] : [];
}

/**
 * The kNN search's input. It takes the read's own filters, so its k neighbours all pass them, unless
 * they are broad (they match more than `semantic.preFilterMaxShare` of the catalog: `filterShare`,
 * search/filterShare.ts): then they are left to the query and k is scaled by 1 / share. "Not
 * removed" is left to the outer query (removed listings carry no vector:
 * store/elasticsearch/listingStore.ts), so a read without filters runs an unfiltered kNN instead of
 * building a filter over every listing. Only while listing vectors of another model are stored (a
 * change of EMBEDDING_MODEL being caught up) does it also filter on the query's model: those are
 * never compared with it.
 */
function nearestInput(request: ReadRequest, settings: RankingSettings, vector: QueryVector, filterShare: number | undefined): NearestInput {
  const { filter } = filterClauses(request.filters);
  const broad = filter.length > 0 && filterShare !== undefined && filterShare > settings.semantic.preFilterMaxShare;
  if (!broad) return { vector: vector.values, filter: [...filter, ...modelFilter(vector)], postFilter: [], widen: 1 };
  return { vector: vector.values, filter: modelFilter(vector), postFilter: filter, widen: 1 / filterShare };
}

/** The semantic part of the text query: the fused neighbours, or the kNN clause (`weighted`), or none. */
function semanticInput(request: ReadRequest, settings: RankingSettings, page: PageOptions): SemanticInput | undefined {
  if (page.neighbours) return { neighbours: page.neighbours };
  return settings.semantic.fusion === 'weighted' && page.queryVector ? nearestInput(request, settings, page.queryVector, page.filterShare) : undefined;
}

/** `semantic.fusion` normalised or rrf: the kNN search of its own, run before the read (search/semanticFusion.ts). */
export function nearestBody(request: ReadRequest & { q: string }, settings: RankingSettings, vector: QueryVector, filterShare?: number, spelled?: string): Json {
  return nearestSearchBody(settings, nearestInput(request, settings, vector, filterShare), semanticDirections(request.q, settings, spelled));
}

export interface PageOptions {
  searchAfter?: SortValue[];
  /** Epoch ms: the recency origin, pinned across the pages of one search. */
  now: number;
  /** The query's embedding, when semantic retrieval is on. */
  queryVector?: QueryVector;
  /**
   * `semantic.fusion` normalised or rrf: the neighbours found by the kNN search of their own
   * (`nearestBody`), on this query's scale; they replace the kNN clause.
   */
  neighbours?: FusedNeighbour[];
  /**
   * The share of the catalog the read's filters matched when its first page was read (absent:
   * unknown, or no filters): where the kNN search applies them (`nearestInput`). Kept across pages.
   */
  filterShare?: number;
  /** Whether to send the typo pass (absent: sent). */
  typoPass?: boolean;
  /** The query as the catalog spells it, when a word of it is in no listing (search/typoPass.ts): read as the typed words. */
  spelled?: string;
  /** Every word of the query when each is in only a few listings (search/typoPass.ts, `rareWords`). */
  rareWords?: readonly string[];
  /** sort=rank: read hits `from`..`from + take` of the rank window of `size` listings. */
  window?: { size: number; from: number; take: number };
  /** sort=rank past the window: the window's listings, left out of the exact ranking of the rest. */
  excludeIds?: readonly string[];
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
    _source: { includes: sourceFields },
    track_total_hits: request.countTotal === true,
  };
  if (request.offset) body.from = request.offset;
  if (request.kind === 'search' && request.q !== undefined) {
    const relevance = textQuery(request.q, settings, semanticInput(request, settings, page), page);
    const excluded = page.excludeIds && page.excludeIds.length > 0 ? [{ terms: { id: [...page.excludeIds] } }] : [];
    if (page.window) {
      body.query = { bool: { must: [relevance], filter, must_not } };
      body.rescore = factorRescore(settings, page.now, page.window.size);
      body.from = page.window.from;
      body.size = page.window.take;
    } else {
      body.query = { bool: { must: [rankedQuery(relevance, settings, page.now)], filter, must_not: [...must_not, ...excluded] } };
      body.sort = sortFor(request);
    }
    // A post_filter: it only checks hits the query already matched, and leaves the ranked query
    // exactly as the plain search runs it.
    if (request.explain) body.post_filter = factorProbes(settings, page.now);
  } else {
    body.query = { bool: { filter, must_not } };
    body.sort = sortFor(request);
  }
  // sort=recent does not sort on _score; explain still reports the score of every hit.
  if (request.explain && request.sort === 'recent') body.track_scores = true;
  if (page.searchAfter) body.search_after = page.searchAfter;
  return body;
}

/** A read's first page as the service sends it: for sort=rank, the top of the rank window. */
export function firstPageBody(request: ReadRequest, settings: RankingSettings, page: PageOptions, sourceFields?: readonly string[]): Json {
  const size = rankWindowOf(request, settings);
  const window = size > 0 ? { window: { size, from: 0, take: Math.min(request.limit + 1, size) } } : {};
  return buildSearchBody(request, settings, { ...page, ...window }, sourceFields);
}

/**
 * The ids of the rank window's listings, in window order: what a page past the window leaves out.
 * Doc values only: no stored document is read.
 */
export function windowIdsBody(request: ReadRequest, settings: RankingSettings, page: PageOptions, window: number): Json {
  const { searchAfter: _after, excludeIds: _excluded, ...inputs } = page;
  const body = buildSearchBody({ ...request, explain: false, countTotal: false }, settings, { ...inputs, window: { size: window, from: 0, take: window } });
  return { ...body, _source: false, docvalue_fields: ['id'] };
}

/** URL parameters of the search: only the response fields the service reads leave Elasticsearch. */
export function searchParamsFor(request: ReadRequest): { filter_path: string; include_named_queries_score?: boolean } {
  const total = request.countTotal ? ',hits.total' : '';
  if (!request.explain) return { filter_path: `hits.hits._source,hits.hits.sort${total}` };
  return { filter_path: `hits.hits._source,hits.hits.sort,hits.hits._score,hits.hits.matched_queries${total}`, include_named_queries_score: true };
}
