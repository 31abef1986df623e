/**
 * The catalog read service behind GET /discovery/resources, /discovery/search, /mcp/tools and the
 * MCP discovery tools: a validated request is planned once (search/readPlanner.ts), the plan's
 * page is read from Elasticsearch (through the read cache, keyed by the plan), and its hits
 * become listings (built only by `toListing`).
 */
import { toListing } from '../catalog/listing.js';
import type { Listing } from '../shapes/listing.js';
import type { ListingDocument } from '../store/listingDocument.js';
import type { ListingSearchIndex, SearchHit } from '../store/elasticsearch/listingSearch.js';
import type { CursorState, SortValue } from './cursor.js';
import { debugFromNamedScores } from './explain.js';
import { exactBody, pageBody, windowBody, windowIdsBody } from './queryBuilder.js';
import { fuseNeighbours, OPPOSITE_DIRECTION, type FusedNeighbour } from './semanticFusion.js';
import type { CacheOutcome, ReadCache } from './readCache.js';
import type { ReadRequest } from './readRequest.js';
import { relevanceWith, type ReadPlan, type SearchParams } from './readPlan.js';
import { ReadPlanner, type PlanOptions, type ReadPlannerOptions } from './readPlanner.js';

type Json = Record<string, unknown>;

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

export interface Found {
  hits: Hit[];
  nextCursor?: string;
  total?: number;
}

export interface CatalogSearchOptions extends ReadPlannerOptions {
  index: ListingSearchIndex;
  /** Identical reads within a second share one answer (absent: every read goes to Elasticsearch). */
  cache?: ReadCache<Found>;
  /** Told whether each read was answered from the cache (a metric). */
  onCacheOutcome?: (outcome: CacheOutcome) => void;
}

export class CatalogSearch {
  private readonly planner: ReadPlanner;

  constructor(protected readonly options: CatalogSearchOptions) {
    this.planner = new ReadPlanner(options);
  }

  /** The read's plan (search/readPlan.ts), as a read makes it. */
  plan(request: ReadRequest, options?: PlanOptions): Promise<ReadPlan> {
    return this.planner.plan(request, options);
  }

  /**
   * The Elasticsearch requests of the plan's page as the service sends them (the benchmarks send
   * them straight to Elasticsearch): the page's body, and for semantic.fusion normalised or rrf the
   * kNN search of its own the read sends first (run here too, to build the body).
   */
  async buildRequest(request: ReadRequest, options?: PlanOptions): Promise<{ body: Json; params: SearchParams; now: number; nearest?: Json }> {
    const plan = await this.planner.plan(request, options);
    const semantic = plan.text?.parts[0]?.semantic;
    const nearest = semantic && semantic.fusion !== 'weighted' ? { nearest: semantic.search } : {};
    return { body: pageBody(plan, await this.relevance(plan)), params: plan.params, now: plan.now, ...nearest };
  }

  /** A page in the listing response shape (GET /discovery/resources, /discovery/search, /mcp/tools). */
  async read(request: ReadRequest): Promise<ReadPage> {
    const { plan, found } = await this.search(request);
    const results = found.hits.map((hit) => this.toResult(plan, hit));
    return found.nextCursor === undefined ? { results } : { results, nextCursor: found.nextCursor };
  }

  /**
   * The same read, as stored documents restricted to `sourceFields`, for other wire shapes of the
   * catalog (the x402 Bazaar surface); `total` when the request asks to count.
   */
  async readDocuments(request: ReadRequest, sourceFields: readonly string[]): Promise<DocumentPage> {
    const { hits, nextCursor, total } = (await this.search(request, sourceFields)).found;
    return { documents: hits.map((hit) => hit._source), ...(nextCursor !== undefined ? { nextCursor } : {}), ...(total !== undefined ? { total } : {}) };
  }

  /** A read through the read cache, keyed by the plan. */
  private async search(request: ReadRequest, sourceFields?: readonly string[]): Promise<{ plan: ReadPlan; found: Found }> {
    const plan = await this.planner.plan(request, sourceFields ? { sourceFields } : {});
    const cache = this.options.cache;
    if (!cache?.enabled) return { plan, found: await this.execute(plan) };
    const { value, outcome } = await cache.read(plan.cacheKey, () => this.execute(plan));
    this.options.onCacheOutcome?.(outcome);
    return { plan, found: value };
  }

  private async execute(plan: ReadPlan): Promise<Found> {
    const relevance = await this.relevance(plan);
    if (relevance && plan.start.at === 'tail') return this.tailPage(plan, relevance, plan.request.limit);
    if (relevance && plan.start.at === 'window') return this.windowPage(plan, relevance, plan.start.from);
    return this.exactPage(plan, relevance);
  }

  /**
   * The relevance query of a ranked search: the plan's, or, for parts whose neighbours a kNN
   * search of its own finds first (`semantic.fusion` normalised or rrf, search/semanticFusion.ts),
   * built once they are found. Every page of a read runs that search again, like the clause.
   */
  private async relevance(plan: ReadPlan): Promise<Json | undefined> {
    const text = plan.text;
    if (!text || text.relevance) return text?.relevance;
    const neighbours = await Promise.all(
      text.parts.map(async (part): Promise<FusedNeighbour[] | undefined> => {
        if (!part.semantic || part.semantic.fusion === 'weighted') return undefined;
        const found = await this.options.index.scoredIds(part.semantic.search);
        return fuseNeighbours(found.map((hit) => ({ id: hit.id, score: hit.score, opposite: hit.matched.includes(OPPOSITE_DIRECTION) })), plan.settings);
      }),
    );
    return relevanceWith(text.parts, plan.settings, neighbours, text.lifts);
  }

  /** Every match ranked exactly (sort=price, sort=recent, no window, and cursors made before the window), or a filter-only read. */
  private async exactPage(plan: ReadPlan, relevance: Json | undefined): Promise<Found> {
    const { limit } = plan.request;
    const found = await this.options.index.search(exactBody(plan, relevance), plan.params);
    const hits = found.hits.slice(0, limit);
    const total = plan.request.countTotal ? { total: found.total ?? 0 } : {};
    const last = hits[hits.length - 1];
    if (found.hits.length <= limit || !last) return { hits, ...total };
    return { hits, nextCursor: await this.cursor(plan, { searchAfter: exactSortValues(plan, last) }), ...total };
  }

  /**
   * Hits `from`.. of the rank window, by position. When the page reaches the end of a full window
   * (more listings may match), it is filled from the tail, so a page is short only at the end.
   */
  private async windowPage(plan: ReadPlan, relevance: Json, from: number): Promise<Found> {
    const { limit } = plan.request;
    const take = Math.min(limit + 1, plan.window - from);
    const found = await this.options.index.search(windowBody(plan, relevance, from, take), plan.params);
    const total = plan.request.countTotal ? { total: found.total ?? 0 } : {};
    if (found.hits.length > limit) {
      return { hits: found.hits.slice(0, limit), nextCursor: await this.cursor(plan, { rank: { size: plan.window, position: from + limit } }), ...total };
    }
    if (found.hits.length < take) return { hits: found.hits, ...total };
    const rest = await this.tailPage(plan, relevance, limit - found.hits.length);
    return { hits: [...found.hits, ...rest.hits], ...(rest.nextCursor ? { nextCursor: rest.nextCursor } : {}), ...total };
  }

  /**
   * `want` listings past the rank window: the other matches, ranked exactly (search_after), without
   * the window's listings (read again, ids only: a tail page is the rare deep page).
   */
  private async tailPage(plan: ReadPlan, relevance: Json, want: number): Promise<Found> {
    const excludeIds = await this.options.index.ids(windowIdsBody(plan, relevance));
    const found = await this.options.index.search(exactBody(plan, relevance, { excludeIds, limit: want }), plan.params);
    const hits = found.hits.slice(0, want);
    const last = hits[hits.length - 1];
    if (found.hits.length <= want) return { hits };
    // A full page taken from the window: the next page starts at the top of the tail.
    const after = last ? { searchAfter: exactSortValues(plan, last) } : {};
    return { hits, nextCursor: await this.cursor(plan, { rank: { size: plan.window, tail: true }, ...after }) };
  }

  private cursor(plan: ReadPlan, position: Omit<CursorState, 'now' | 'filterShare'>): Promise<string> {
    return this.options.cursors.encode(plan.request, { ...position, ...plan.carried });
  }

  private toResult(plan: ReadPlan, hit: Hit): Listing {
    const listing = toListing(hit._source);
    if (plan.request.explain) {
      listing.debug = debugFromNamedScores(hit._score ?? 0, hit.matched_queries);
      const lift = plan.request.lifts?.find((l) => l.id === listing.id);
      if (lift) listing.debug.outcomes = { lift: lift.boost, payers: lift.payers };
    }
    return listing;
  }
}

/**
 * The hit's sort values for `search_after`. Elasticsearch returns a long sort value as a JSON
 * number, which loses precision above 2^53; the stored amount string is the exact value.
 */
function exactSortValues(plan: ReadPlan, hit: Hit): SortValue[] {
  const values = [...(hit.sort ?? [])];
  const amount = hit._source.payment?.amount;
  if (plan.request.kind === 'search' && plan.request.sort === 'price' && amount !== undefined && /^\d+$/.test(String(amount))) {
    values[0] = String(amount);
  }
  return values;
}
