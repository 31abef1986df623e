/**
 * What a validated read says to Elasticsearch before any ranking: its filters as clauses, its
 * order, the stored fields a page reads and whether it is ranked in a window. search/readPlan.ts
 * builds each of them once per read; the body builders (search/queryBuilder.ts) and the kNN
 * search's plan read them from the plan.
 */
import type { CatalogFilters, ReadRequest } from './readRequest.js';
import type { RankingSettings } from './rankingSettings.js';
import { NOT_REMOVED } from '../store/elasticsearch/listingQueries.js';
import { payableClause } from './payableQuery.js';

type Json = Record<string, unknown>;

/** The listing's 7-day health uptime (absent until it was checked once). */
const UPTIME = 'signals.health.uptime7d';

/** Only what `toListing` reads: Elasticsearch sends less, Node parses less. */
export const LISTING_SOURCE_FIELDS = [
  'id', 'type', 'resource', 'name', 'title', 'description', 'iconUrl', 'inputSchema', 'outputSchema', 'tags', 'payment', 'describe', 'signals', 'provenance',
];

export interface FilterClauses {
  /** The read's filters (empty without any). */
  readonly filter: readonly Json[];
  /** "Not removed": every read leaves removed listings out. */
  readonly must_not: readonly Json[];
}

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
 * `limit + 1` matches instead of sorting every match. Every
 * stored listing has a firstSeen (the write path sets it), so `_last` never reaches a cursor.
 */
const RESOURCES_ORDER = [{ firstSeen: { order: 'desc' } }, ID];
const BY_PRICE = [{ 'payment.amount': { order: 'asc' } }, { _score: { order: 'desc' } }, ID];
const BY_RECENT = [{ 'signals.lastSettled': { order: 'desc', missing: 0 } }, NEWEST_FIRST_SEEN, ID];
const BY_SCORE = [{ _score: { order: 'desc' } }, ID];

export function sortFor(request: ReadRequest): readonly Json[] {
  if (request.kind === 'resources') return RESOURCES_ORDER;
  switch (request.sort) {
    case 'price':
      return BY_PRICE;
    case 'recent':
      return BY_RECENT;
    default:
      return BY_SCORE;
  }
}

export function filterClauses(filters: CatalogFilters): FilterClauses {
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
