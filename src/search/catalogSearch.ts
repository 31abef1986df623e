/**
 * The catalog read service behind GET /discovery/resources, /discovery/search and /mcp/tools:
 * validated request in, one Elasticsearch search, listings (built only by `toListing`) out.
 */
import type { Client } from '@elastic/elasticsearch';
import { toListing, type Listing, type ListingDocument } from '../catalog/listing.js';
import { CursorCodec, type SortValue } from './cursor.js';
import { debugFromNamedScores } from './explain.js';
import { buildSearchBody, searchParamsFor, sortFor, type PageOptions } from './queryBuilder.js';
import type { RankingCache } from './rankingCache.js';
import type { ReadRequest } from './readRequest.js';
import type { QueryEmbeddings } from '../semantic/queryEmbeddings.js';

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

interface Hit {
  _source: ListingDocument;
  _score?: number | null;
  sort?: SortValue[];
  matched_queries?: Record<string, number>;
}

export interface CatalogSearchOptions {
  elasticsearch: Client;
  alias: string;
  ranking: RankingCache;
  cursors: CursorCodec;
  /** Query vectors for semantic retrieval; absent or without a model: text relevance alone. */
  queryEmbeddings?: QueryEmbeddings;
  /** Injectable clock: the recency origin of a first page. */
  now?: () => number;
}

export class CatalogSearch {
  private readonly now: () => number;

  constructor(private readonly options: CatalogSearchOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The Elasticsearch request a read turns into (the benchmark sends it straight to Elasticsearch). */
  async buildRequest(request: ReadRequest, sourceFields?: readonly string[]): Promise<{ body: Record<string, unknown>; now: number }> {
    const sortLength = sortFor(request).length;
    const state = request.cursor !== undefined ? await this.options.cursors.decode(request, request.cursor, sortLength) : undefined;
    const now = state?.now ?? this.now();
    const settings = await this.options.ranking.current();
    const page: PageOptions = state ? { searchAfter: state.searchAfter, now } : { now };
    if (request.kind === 'search' && request.q !== undefined && settings.semantic.weight > 0) {
      const vector = await this.options.queryEmbeddings?.vectorFor(request.q);
      if (vector) page.queryVector = vector;
    }
    return { body: buildSearchBody(request, settings, page, sourceFields), now };
  }

  /** A page in SPEC's listing shape (GET /discovery/resources, /discovery/search, /mcp/tools). */
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
    const response = await this.options.elasticsearch.search<ListingDocument>(
      { index: this.options.alias, ...body, ...searchParamsFor(request) } as never,
      // No OpenTelemetry SDK is installed, so the client's per-request span is pure overhead on the hot path.
      { openTelemetry: { enabled: false } },
    );
    const found = (response as { hits?: { hits?: Hit[]; total?: { value: number } } }).hits;
    const all = (found?.hits ?? []) as Hit[];
    const hits = all.slice(0, request.limit);
    const total = request.countTotal ? (found?.total?.value ?? 0) : undefined;
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
