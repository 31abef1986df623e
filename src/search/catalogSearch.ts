/**
 * The catalog read service behind GET /discovery/resources, /discovery/search and /mcp/tools:
 * validated request in, one Elasticsearch search, listings (built only by `toListing`) out.
 */
import { toListing } from '../catalog/listing.js';
import type { Listing } from '../shapes/listing.js';
import type { ListingDocument } from '../store/listingDocument.js';
import type { ListingSearchIndex, SearchHit } from '../store/elasticsearch/listingSearch.js';
import { systemClock, type Clock } from '../core/clock.js';
import { CursorCodec, type SortValue } from './cursor.js';
import { debugFromNamedScores } from './explain.js';
import { buildSearchBody, searchParamsFor, sortFor, type PageOptions } from './queryBuilder.js';
import type { RankingCache } from './rankingCache.js';
import type { ReadRequest } from './readRequest.js';
import type { QueryEmbeddings } from '../semantic/queryEmbeddings.js';
import type { TypoPass } from './typoPass.js';

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

export interface CatalogSearchOptions {
  index: ListingSearchIndex;
  ranking: RankingCache;
  cursors: CursorCodec;
  /** Query vectors for semantic retrieval; absent or without a model: text relevance alone. */
  queryEmbeddings?: QueryEmbeddings;
  /** Decides whether a query needs the typo pass; absent: always sent. */
  typoPass?: TypoPass;
  /** Injectable clock: the recency origin of a first page. */
  now?: Clock;
}

export class CatalogSearch {
  private readonly now: Clock;

  constructor(private readonly options: CatalogSearchOptions) {
    this.now = options.now ?? systemClock;
  }

  /** The Elasticsearch request a read turns into (the benchmark sends it straight to Elasticsearch). */
  async buildRequest(request: ReadRequest, sourceFields?: readonly string[]): Promise<{ body: Record<string, unknown>; now: number }> {
    const sortLength = sortFor(request).length;
    const state = request.cursor !== undefined ? await this.options.cursors.decode(request, request.cursor, sortLength) : undefined;
    const now = state?.now ?? this.now();
    const settings = await this.options.ranking.current();
    const page: PageOptions = state ? { searchAfter: state.searchAfter, now } : { now };
    if (request.kind === 'search' && request.q !== undefined) {
      const q = request.q;
      const [vector, typoPass] = await Promise.all([
        settings.semantic.weight > 0 ? this.options.queryEmbeddings?.vectorFor(q) : undefined,
        settings.typos.weight > 0 ? this.options.typoPass?.neededFor(q) : undefined,
      ]);
      if (vector) page.queryVector = vector;
      if (typoPass !== undefined) page.typoPass = typoPass;
    }
    return { body: buildSearchBody(request, settings, page, sourceFields), now };
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

  private async search(request: ReadRequest, sourceFields?: readonly string[]): Promise<{ hits: Hit[]; nextCursor?: string; total?: number }> {
    const { body, now } = await this.buildRequest(request, sourceFields);
    const found = await this.options.index.search(body, searchParamsFor(request));
    const all = found.hits;
    const hits = all.slice(0, request.limit);
    const total = request.countTotal ? (found.total ?? 0) : undefined;
    const last = hits[hits.length - 1];
    if (all.length <= request.limit || !last) return { hits, ...(total !== undefined ? { total } : {}) };
    const nextCursor = await this.options.cursors.encode(request, {
      searchAfter: exactSortValues(request, last),
      // Only scores depend on `now`; sort=recent does not sort on the score.
      ...(request.kind === 'search' && request.sort !== 'recent' ? { now } : {}),
    });
    return { hits, nextCursor, ...(total !== undefined ? { total } : {}) };
  }

  private toResult(request: ReadRequest, hit: Hit): Listing {
    const listing = toListing(hit._source);
    if (request.explain) listing.debug = debugFromNamedScores(hit._score ?? 0, hit.matched_queries);
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
