/**
 * A catalog read, planned once (docs/catalog-reads.md, "How a read is planned"). The validated
 * request (search/readRequest.ts) becomes one plan: its filters as clauses, its order, the rank
 * window and where the page starts in it, the parts of its text query (each with its lexical
 * and semantic part), the fields and URL parameters of its searches, what its next cursor
 * carries and the read cache's key. Every search body of the read (search/queryBuilder.ts), the
 * read cache, explain and the pages (search/catalogSearch.ts) read this plan, and nothing reads
 * the request again.
 *
 * `planRead` is pure: what it needs from outside the request (the tunables, the cursor's state,
 * each part's typo verdict and query vector, the filters' share of the catalog) the planner
 * gathers first (search/readPlanner.ts). A query is one part today; a stage that splits a task
 * into needs gives the plan one part per need, each with its own reading and vector, and the
 * relevance query matches any of them.
 */
import type { QueryVector } from '../semantic/queryEmbeddings.js';
import type { CursorState, SortValue } from './cursor.js';
import type { RankingSettings } from './rankingSettings.js';
import { filterClauses, LISTING_SOURCE_FIELDS, rankWindowOf, sortFor, type FilterClauses } from './readClauses.js';
import type { ReadRequest } from './readRequest.js';
import { nearestSearchBody, type FusedNeighbour, type NearestInput } from './semanticFusion.js';
import { lexicalPart, semanticClauses, type LexicalPart, type QueryReading } from './textQuery.js';

type Json = Record<string, unknown>;

/** Where the page starts: in the rank window (by position), past it (its tail), or in an exact order. */
export type PageStart = { readonly at: 'window'; readonly from: number } | { readonly at: 'tail' } | { readonly at: 'exact' };

/**
 * The semantic part of a query part: the listings nearest in meaning, by `semantic.fusion`:
 * `weighted`, a kNN clause inside the relevance query; `normalised` or `rrf`, a kNN search of its
 * own sent first (`search`), whose neighbours come back into the relevance query as constants.
 */
export type SemanticPart =
  | { readonly fusion: 'weighted'; readonly nearest: NearestInput }
  | { readonly fusion: 'normalised' | 'rrf'; readonly nearest: NearestInput; readonly search: Json };

/** One part of the text query: the words it searches, how the catalog reads them, and its two sides. */
export interface QueryPart {
  readonly q: string;
  readonly reading: QueryReading;
  /** Built once per words, reading and tunables, and shared (frozen): search/textQuery.ts. */
  readonly lexical: LexicalPart;
  /** The query vector of its words (as the catalog spells them), when semantic retrieval is on. */
  readonly vector?: QueryVector;
  readonly semantic?: SemanticPart;
}

export interface TextPlan {
  readonly parts: readonly QueryPart[];
  /** Paid-outcome lifts of the request (search/taskSearch.ts), added to relevance. */
  readonly lifts?: Lifts;
  /** The relevance query; absent while a part waits for the neighbours of its kNN search of its own (`relevanceWith`). */
  readonly relevance?: Json;
}

export type SearchParams = {
  filter_path: string;
  include_named_queries_score?: boolean;
};

export interface ReadPlan {
  readonly request: ReadRequest;
  readonly settings: RankingSettings;
  readonly filters: FilterClauses;
  /** The order of exact pages (sort=price, sort=recent, resources, past the rank window). */
  readonly sort: readonly Json[];
  /** Ranked searches only. */
  readonly text?: TextPlan;
  /** The rank window's size; 0: ranked exactly. A search keeps the window it started with. */
  readonly window: number;
  readonly start: PageStart;
  /** The cursor's sort values of the last listing shown (exact pages and the tail). */
  readonly searchAfter?: SortValue[];
  /** Epoch ms: the recency origin, pinned across the pages of one search. */
  readonly now: number;
  readonly sourceFields: readonly string[];
  readonly params: SearchParams;
  /** What the next page's cursor carries besides its position. */
  readonly carried: Pick<CursorState, 'now' | 'filterShare'>;
  /** The read cache's key: the whole validated request, the fields read and the tunables in force. */
  readonly cacheKey: string;
}

/** What the planner found for one part of the query. */
export interface PartLookup {
  q: string;
  reading?: QueryReading;
  vector?: QueryVector;
}

export interface PlanContext {
  settings: RankingSettings;
  /** The version of the tunables in force (search/rankingCache.ts). */
  tunables: number;
  /** The clock's time: a first page's recency origin (a cursor carries its first page's). */
  now: number;
  cursor?: CursorState;
  /** The request's filters as clauses, when the planner built them for its look-ups. */
  filters?: FilterClauses;
  /** Each part of the query with what was looked up for it; absent: the whole query, read as typed. */
  parts?: readonly PartLookup[];
  /** The share of the catalog the filters match (search/filterShare.ts); a cursor's share first. */
  filterShare?: number;
  /** Another wire shape's fields (the x402 Bazaar surface); absent: the listing shape's. */
  sourceFields?: readonly string[];
}

export function planRead(request: ReadRequest, context: PlanContext): ReadPlan {
  const { settings, cursor } = context;
  const filters = context.filters ?? filterClauses(request.filters);
  const window = cursor?.rank?.size ?? rankWindowOf(request, settings);
  const now = cursor?.now ?? context.now;
  const search = request.kind === 'search' && request.q !== undefined;
  const text = search ? textPlan(context.parts ?? [{ q: request.q! }], settings, filters, context.filterShare, request.lifts) : undefined;
  const scored = request.kind === 'search' && request.sort !== 'recent';
  return {
    request,
    settings,
    filters,
    sort: sortFor(request),
    ...(text ? { text } : {}),
    window,
    start: pageStart(cursor, window),
    ...(cursor?.searchAfter ? { searchAfter: cursor.searchAfter } : {}),
    now,
    sourceFields: context.sourceFields ?? LISTING_SOURCE_FIELDS,
    params: searchParams(request),
    // Only scores depend on `now`; sort=recent does not sort on the score.
    carried: { ...(scored ? { now } : {}), ...(context.filterShare !== undefined ? { filterShare: context.filterShare } : {}) },
    // The grammar builds a request's members in one order (search/readGrammar.ts), so its JSON is
    // the same for the same read; two equal requests built otherwise would only miss each other.
    cacheKey: `${context.tunables}\u0000${context.sourceFields?.join(',') ?? ''}\u0000${JSON.stringify(request)}`,
  };
}

function pageStart(cursor: CursorState | undefined, window: number): PageStart {
  const rank = cursor?.rank;
  if (rank && 'tail' in rank) return { at: 'tail' };
  if (window > 0 && !cursor?.searchAfter) return { at: 'window', from: rank?.position ?? 0 };
  return { at: 'exact' };
}

function textPlan(lookups: readonly PartLookup[], settings: RankingSettings, filters: FilterClauses, filterShare: number | undefined, lifts: Lifts | undefined): TextPlan {
  const parts = lookups.map((lookup): QueryPart => {
    const reading = lookup.reading ?? {};
    const lexical = lexicalPart(lookup.q, settings, reading);
    const semantic = semanticPart(lookup.vector, settings, filters, filterShare, lexical);
    return { q: lookup.q, reading, lexical, ...(lookup.vector ? { vector: lookup.vector } : {}), ...(semantic ? { semantic } : {}) };
  });
  const waiting = parts.some((part) => part.semantic && part.semantic.fusion !== 'weighted');
  const lifted = lifts && lifts.length > 0 ? { lifts } : {};
  return waiting ? { parts, ...lifted } : { parts, ...lifted, relevance: relevanceWith(parts, settings, [], lifts) };
}

function semanticPart(vector: QueryVector | undefined, settings: RankingSettings, filters: FilterClauses, filterShare: number | undefined, lexical: LexicalPart): SemanticPart | undefined {
  if (!vector || settings.semantic.weight <= 0) return undefined;
  const nearest = nearestInput(filters, settings, vector, filterShare);
  const fusion = settings.semantic.fusion;
  return fusion === 'weighted' ? { fusion, nearest } : { fusion, nearest, search: nearestSearchBody(settings, nearest, lexical.directions) };
}

/**
 * The relevance query of the parts: every part's clauses in one bool of should clauses, so a
 * listing scores for each part it matches. `neighbours[i]`: part i's fused neighbours, found by
 * its kNN search of its own (`normalised`, `rrf`).
 */
export function relevanceWith(parts: readonly QueryPart[], settings: RankingSettings, neighbours: ReadonlyArray<FusedNeighbour[] | undefined>, lifts?: Lifts): Json {
  const meaning = parts.map((part, i) => {
    const semantic = part.semantic;
    const input = !semantic ? undefined : semantic.fusion === 'weighted' ? semantic.nearest : { neighbours: neighbours[i] ?? [] };
    return semanticClauses(settings, part.lexical, input);
  });
  const lifted = liftClauses(lifts);
  // One part without a semantic side: its kept (frozen) clauses themselves, nothing copied per read.
  if (parts.length === 1 && meaning[0]!.length === 0 && lifted.length === 0) return { bool: { should: parts[0]!.lexical.clauses, minimum_should_match: 1 } };
  return { bool: { should: [...parts.flatMap((part, i) => [...part.lexical.clauses, ...meaning[i]!]), ...lifted], minimum_should_match: 1 } };
}

type Lifts = NonNullable<ReadRequest['lifts']>;

/**
 * Paid-outcome lifts (src/outcomes, search/taskSearch.ts): a constant per lifted listing in the
 * relevance bool, so one paid for after similar searches is found even without a word in common.
 */
function liftClauses(lifts: Lifts | undefined): Json[] {
  return (lifts ?? []).map((lift) => ({ constant_score: { filter: { ids: { values: [lift.id] } }, boost: lift.boost } }));
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
function nearestInput(filters: FilterClauses, settings: RankingSettings, vector: QueryVector, filterShare: number | undefined): NearestInput {
  const { filter } = filters;
  const broad = filter.length > 0 && filterShare !== undefined && filterShare > settings.semantic.preFilterMaxShare;
  if (!broad) return { vector: vector.values, filter: [...filter, ...modelFilter(vector)], postFilter: [], widen: 1 };
  return { vector: vector.values, filter: modelFilter(vector), postFilter: [...filter], widen: 1 / filterShare };
}

/** URL parameters of the read's searches: only the response fields the service reads leave Elasticsearch. */
function searchParams(request: ReadRequest): SearchParams {
  const total = request.countTotal ? ',hits.total' : '';
  if (!request.explain) return { filter_path: `hits.hits._source,hits.hits.sort${total}` };
  return { filter_path: `hits.hits._source,hits.hits.sort,hits.hits._score,hits.hits.matched_queries${total}`, include_named_queries_score: true };
}
