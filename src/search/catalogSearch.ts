/**
 * The catalog read service behind GET /discovery/resources, /discovery/search and /mcp/tools:
 * validated request in, one Elasticsearch search, listings (built only by `toListing`) out.
 */
import { toListing } from '../catalog/listing.js';
import type { Listing } from '../shapes/listing.js';
import type { ListingDocument } from '../store/listingDocument.js';
import type { ListingSearchIndex, SearchHit } from '../store/elasticsearch/listingSearch.js';
import { systemClock, type Clock } from '../core/clock.js';
import { CursorCodec, type CursorState, type SortValue } from './cursor.js';
import { debugFromNamedScores } from './explain.js';
import { buildSearchBody, filterClauses, nearestBody, rankWindowOf, searchParamsFor, sortFor, windowIdsBody, type PageOptions } from './queryBuilder.js';
import { fuseNeighbours, OPPOSITE_DIRECTION, type FusedNeighbour } from './semanticFusion.js';
import type { RankingSettings } from './rankingSettings.js';
import type { CacheOutcome, ReadCache } from './readCache.js';
import { canonicalJson } from '../core/json.js';
import type { RankingCache } from './rankingCache.js';
import type { ReadRequest } from './readRequest.js';
import type { QueryEmbeddings, QueryVector } from '../semantic/queryEmbeddings.js';
import { editBudget, type TypoPass } from './typoPass.js';
import type { FilterShare } from './filterShare.js';

export interface ReadPage {
  results: Listing[];
  nextCursor?: string;
}

export interface DocumentPage {
  documents: ListingDocument[];
  nextCursor?: string;
  /** Every match, when the request set `countTotal`. */
  total?: number;
}

type Hit = SearchHit;

/**
 * The read cache's key: the whole validated request (every filter, present and future), the source
 * fields of the shape it is read for, and the version of the ranking tunables.
 */
function readCacheKey(request: ReadRequest, sourceFields: readonly string[] | undefined, tunables: number): string {
  return canonicalJson({ tunables, sourceFields: sourceFields ?? null, request });
}

export interface Found {
  hits: Hit[];
  nextCursor?: string;
  total?: number;
}

interface Plan {
  state: CursorState | undefined;
  settings: RankingSettings;
  page: PageOptions;
  /** The rank window's size for this read; 0: ranked exactly. */
  window: number;
}


export interface CatalogSearchOptions {
  index: ListingSearchIndex;
  ranking: RankingCache;
  cursors: CursorCodec;
  /** Query vectors for semantic retrieval; absent or without a model: text relevance alone. */
  queryEmbeddings?: QueryEmbeddings;
  /** Decides whether a query needs the typo pass; absent: always sent. */
  typoPass?: TypoPass;
  /** How much of the catalog a read's filters match, for its kNN search's plan; absent: filters inside it. */
  filterShare?: FilterShare;
  /** Injectable clock: the recency origin of a first page. */
  now?: Clock;
  /** Identical reads within a second share one answer (absent: every read goes to Elasticsearch). */
  cache?: ReadCache<Found>;
  /** Told whether each read was answered from the cache (a metric). */
  onCacheOutcome?: (outcome: CacheOutcome) => void;
}

export class CatalogSearch {
  private readonly now: Clock;

  constructor(protected readonly options: CatalogSearchOptions) {
    this.now = options.now ?? systemClock;
  }

  /**
   * The Elasticsearch request a read's page turns into (the benchmarks send it straight to
   * Elasticsearch): for a ranked search's first page, the rank window read.
   */
  async buildRequest(
    request: ReadRequest,
    sourceFields?: readonly string[],
    /** Benchmarks only: the tunables as an operator would change them (e.g. another window size). */
    tune?: (settings: RankingSettings) => RankingSettings,
  ): Promise<{ body: Record<string, unknown>; now: number; nearest?: Record<string, unknown> }> {
    const planned = await this.plan(request);
    const plan = tune ? { ...planned, settings: tune(planned.settings), window: rankWindowOf(request, tune(planned.settings)) } : planned;
    const rank = plan.state?.rank;
    const from = rank && 'position' in rank ? rank.position : 0;
    const inWindow = plan.window > 0 && !(rank && 'tail' in rank) && !plan.state?.searchAfter;
    const page: PageOptions = inWindow ? { ...plan.page, window: { size: plan.window, from, take: Math.min(request.limit + 1, plan.window - from) } } : plan.page;
    const body = buildSearchBody(request, plan.settings, page, sourceFields);
    // semantic.fusion normalised or rrf: the kNN search of its own the read sends first, for the benchmarks to send too.
    const vector = plan.page.queryVector;
    const nearest = plan.page.neighbours && vector && request.q !== undefined ? { nearest: nearestBody({ ...request, q: request.q }, plan.settings, vector, plan.page.filterShare, plan.page.spelled) } : {};
    return { body, now: plan.page.now, ...nearest };
  }

  /** What a read needs before it is built: the cursor's state, the tunables, the query's vector and typo pass. */
  private async plan(request: ReadRequest): Promise<Plan> {
    const sortLength = sortFor(request).length;
    const state = request.cursor !== undefined ? await this.options.cursors.decode(request, request.cursor, sortLength) : undefined;
    const now = state?.now ?? this.now();
    const settings = await this.options.ranking.current();
    const page: PageOptions = state?.searchAfter ? { searchAfter: state.searchAfter, now } : { now };
    if (request.kind === 'search' && request.q !== undefined) {
      const q = request.q;
      const semantic = settings.semantic.weight > 0 && this.options.queryEmbeddings !== undefined;
      // The catalog's spelling of a misspelled word serves both sides: the words and the meaning.
      const spelling = settings.typos.spelling === 'catalog' ? editBudget(settings.typos.fuzziness) : undefined;
      const rareWithin = settings.rareWords.boost > 0 ? settings.rareWords.maxListings : undefined;
      const [typedVector, typos, filterShare] = await Promise.all([
        semantic ? this.options.queryEmbeddings?.vectorFor(q) : undefined,
        settings.typos.weight > 0 || spelling || rareWithin ? this.options.typoPass?.check(q, { ...(spelling ? { spelling } : {}), ...(rareWithin ? { rareWithin } : {}) }) : undefined,
        // A search keeps the kNN plan its first page had, so its pages rank the same neighbours.
        state ? state.filterShare : semantic && settings.semantic.preFilterMaxShare < 1 ? this.options.filterShare?.of(filterClauses(request.filters).filter) : undefined,
      ]);
      // The typed text's vector is asked for alongside the look-up, so a correctly spelled query
      // (nearly every one) waits for no extra round trip; a misspelled one is read as the catalog spells it.
      const vector = semantic && typos?.spelled !== undefined ? await this.options.queryEmbeddings?.vectorFor(typos.spelled) : typedVector;
      if (vector) page.queryVector = vector;
      if (typos !== undefined && settings.typos.weight > 0) page.typoPass = typos.needed;
      if (typos?.spelled !== undefined) page.spelled = typos.spelled;
      if (typos?.rareWords !== undefined) page.rareWords = typos.rareWords;
      if (filterShare !== undefined) page.filterShare = filterShare;
      if (vector && settings.semantic.fusion !== 'weighted') page.neighbours = await this.neighbours({ ...request, q }, settings, vector, filterShare, page.spelled);
    }
    // A search keeps the window it started with, whatever the operator changes meanwhile: pages
    // past it leave out the very listings its earlier pages showed.
    return { state, settings, page, window: state?.rank?.size ?? rankWindowOf(request, settings) };
  }

  /**
   * `semantic.fusion` normalised or rrf: the k nearest by a kNN search of their own, on this
   * query's scale (search/semanticFusion.ts). Every page of a read runs it again, like the clause.
   */
  private async neighbours(request: ReadRequest & { q: string }, settings: RankingSettings, vector: QueryVector, filterShare: number | undefined, spelled: string | undefined): Promise<FusedNeighbour[]> {
    const found = await this.options.index.scoredIds(nearestBody(request, settings, vector, filterShare, spelled));
    return fuseNeighbours(found.map((hit) => ({ id: hit.id, score: hit.score, opposite: hit.matched.includes(OPPOSITE_DIRECTION) })), settings);
  }

  /** A page in the listing response shape (GET /discovery/resources, /discovery/search, /mcp/tools). */
  async read(request: ReadRequest): Promise<ReadPage> {
    const { hits, nextCursor } = await this.search(request);
    const results = hits.map((hit) => this.toResult(request, hit));
    return nextCursor === undefined ? { results } : { results, nextCursor };
  }

  /**
   * The same read, as stored documents restricted to `sourceFields`, for other wire shapes of the
   * catalog (the x402 Bazaar surface); `total` when the request asks to count.
   */
  async readDocuments(request: ReadRequest, sourceFields: readonly string[]): Promise<DocumentPage> {
    const { hits, nextCursor, total } = await this.search(request, sourceFields);
    return { documents: hits.map((hit) => hit._source), ...(nextCursor !== undefined ? { nextCursor } : {}), ...(total !== undefined ? { total } : {}) };
  }

  /** A read through the read cache, keyed by the validated request, the fields read and the tunables in force. */
  private async search(request: ReadRequest, sourceFields?: readonly string[]): Promise<Found> {
    const cache = this.options.cache;
    if (!cache?.enabled) return this.searchUncached(request, sourceFields);
    await this.options.ranking.current();
    const key = readCacheKey(request, sourceFields, this.options.ranking.version);
    const { value, outcome } = await cache.read(key, () => this.searchUncached(request, sourceFields));
    this.options.onCacheOutcome?.(outcome);
    return value;
  }

  private async searchUncached(request: ReadRequest, sourceFields?: readonly string[]): Promise<Found> {
    const plan = await this.plan(request);
    const rank = plan.state?.rank;
    if (rank && 'tail' in rank) return this.tailPage(request, plan, request.limit, sourceFields);
    if (plan.window > 0 && !plan.state?.searchAfter) return this.windowPage(request, plan, rank?.position ?? 0, sourceFields);
    return this.exactPage(request, plan, sourceFields);
  }

  /** Every match ranked exactly (sort=price, sort=recent, no window, and cursors made before the window). */
  private async exactPage(request: ReadRequest, plan: Plan, sourceFields?: readonly string[]): Promise<Found> {
    const found = await this.options.index.search(buildSearchBody(request, plan.settings, plan.page, sourceFields), searchParamsFor(request));
    const hits = found.hits.slice(0, request.limit);
    const total = request.countTotal ? { total: found.total ?? 0 } : {};
    const last = hits[hits.length - 1];
    if (found.hits.length <= request.limit || !last) return { hits, ...total };
    return { hits, nextCursor: await this.cursor(request, plan, { searchAfter: exactSortValues(request, last) }), ...total };
  }

  /**
   * Hits `from`.. of the rank window, by position. When the page reaches the end of a full window
   * (more listings may match), it is filled from the tail, so a page is short only at the end.
   */
  private async windowPage(request: ReadRequest, plan: Plan, from: number, sourceFields?: readonly string[]): Promise<Found> {
    const take = Math.min(request.limit + 1, plan.window - from);
    const page: PageOptions = { ...plan.page, window: { size: plan.window, from, take } };
    const found = await this.options.index.search(buildSearchBody(request, plan.settings, page, sourceFields), searchParamsFor(request));
    const total = request.countTotal ? { total: found.total ?? 0 } : {};
    if (found.hits.length > request.limit) {
      return { hits: found.hits.slice(0, request.limit), nextCursor: await this.cursor(request, plan, { rank: { size: plan.window, position: from + request.limit } }), ...total };
    }
    if (found.hits.length < take) return { hits: found.hits, ...total };
    const rest = await this.tailPage(request, plan, request.limit - found.hits.length, sourceFields);
    return { hits: [...found.hits, ...rest.hits], ...(rest.nextCursor ? { nextCursor: rest.nextCursor } : {}), ...total };
  }

  /**
   * `want` listings past the rank window: the other matches, ranked exactly (search_after), without
   * the window's listings (read again, ids only: a tail page is the rare deep page).
   */
  private async tailPage(request: ReadRequest, plan: Plan, want: number, sourceFields?: readonly string[]): Promise<Found> {
    const windowIds = await this.options.index.ids(windowIdsBody(request, plan.settings, plan.page, plan.window));
    const tail = { ...request, limit: want };
    const found = await this.options.index.search(buildSearchBody(tail, plan.settings, { ...plan.page, excludeIds: windowIds }, sourceFields), searchParamsFor(request));
    const hits = found.hits.slice(0, want);
    const last = hits[hits.length - 1];
    if (found.hits.length <= want) return { hits };
    // A full page taken from the window: the next page starts at the top of the tail.
    const after = last ? { searchAfter: exactSortValues(request, last) } : {};
    return { hits, nextCursor: await this.cursor(request, plan, { rank: { size: plan.window, tail: true }, ...after }) };
  }

  private cursor(request: ReadRequest, plan: Plan, position: Omit<CursorState, 'now'>): Promise<string> {
    // Only scores depend on `now`; sort=recent does not sort on the score.
    const now = request.kind === 'search' && request.sort !== 'recent' ? { now: plan.page.now } : {};
    const share = plan.page.filterShare !== undefined ? { filterShare: plan.page.filterShare } : {};
    return this.options.cursors.encode(request, { ...position, ...now, ...share });
  }

  private toResult(request: ReadRequest, hit: Hit): Listing {
    const listing = toListing(hit._source);
    if (request.explain) {
      listing.debug = debugFromNamedScores(hit._score ?? 0, hit.matched_queries);
      const lift = request.lifts?.find((l) => l.id === listing.id);
      if (lift) listing.debug.outcomes = { lift: lift.boost, payers: lift.payers };
    }
    return listing;
  }
}

/**
 * The hit's sort values for `search_after`. Elasticsearch returns a long sort value as a JSON
 * number, which loses precision above 2^53; the stored amount string is the exact value.
 */
function exactSortValues(request: ReadRequest, hit: Hit): SortValue[] {
  const values = [...(hit.sort ?? [])];
  const amount = hit._source.payment?.amount;
  if (request.kind === 'search' && request.sort === 'price' && amount !== undefined && /^\d+$/.test(String(amount))) {
    values[0] = String(amount);
  }
  return values;
}
