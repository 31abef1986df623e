/**
 * Runs a catalog read's search bodies (search/queryBuilder.ts) against the listing alias: through
 * the reads' own HTTP path (searchHttp.ts) when the client has one, else through the client.
 */
import type { Client } from '@elastic/elasticsearch';
import type { ListingDocument } from '../listingDocument.js';
import { NOT_REMOVED, type SortValue } from './listingQueries.js';
import { searchHttpOf } from './client.js';
import type { SearchHttp } from './searchHttp.js';

export interface SearchHit {
  _source: ListingDocument;
  _score?: number | null;
  sort?: SortValue[];
  /** With include_named_queries_score: the score of each named query (explain=1). */
  matched_queries?: Record<string, number>;
}

type Params = Record<string, unknown>;

/** Stands for a query vector in the body's JSON until the vector's own JSON goes in. */
const STAND_IN = '\u0000query_vector';
/**
 * The stand-in as the body's JSON holds it. Only a key can make it: in a string of the body (a
 * query typed so) its quotes are escaped, and this has them bare.
 */
const STAND_IN_JSON = `"query_vector":${JSON.stringify(STAND_IN)}`;
/** Each query vector's JSON, kept while the vector is (the query-vector cache holds one array per query: semantic/queryEmbeddings.ts). */
const vectorJson = new WeakMap<readonly unknown[], string>();

/**
 * A search body as JSON, with each `query_vector` (384 numbers, nine tenths of a ranked search's
 * body) serialized once per vector array rather than on every read: the numbers' conversion to
 * text was most of the body's serialization (lab journal 2026-12-03). The body is walked once for
 * its vectors and copied only along the path to each (the body itself is never changed), the copy
 * serialized by plain JSON.stringify with a stand-in for each vector, then each vector's JSON put
 * in its place: a replacer function, called for every key of the body, cost as much as the
 * numbers it saved (lab journal 2026-12-07). The bytes are exactly JSON.stringify's. Vector
 * arrays are never changed after they are made.
 */
export function searchBodyJson(body: Record<string, unknown>): string {
  const vectors: string[] = [];
  const stood = withStandIns(body, vectors);
  if (vectors.length === 0) return JSON.stringify(body);
  let next = 0;
  const json = JSON.stringify(stood).replaceAll(STAND_IN_JSON, () => `"query_vector":${vectors[next++] ?? 'null'}`);
  return next === vectors.length ? json : JSON.stringify(body);
}

/** `value`, or a copy of it along the paths to its query vectors with a stand-in for each (their JSON pushed to `vectors`, in JSON order). */
function withStandIns(value: unknown, vectors: string[]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const replaced = withStandIns(item, vectors);
      if (replaced !== item) (copy ??= value.slice())[i] = replaced;
    }
    return copy ?? value;
  }
  const object = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const item = object[key];
    let replaced: unknown;
    if (key === 'query_vector' && Array.isArray(item)) {
      let text = vectorJson.get(item);
      if (text === undefined) vectorJson.set(item, (text = JSON.stringify(item)));
      vectors.push(text);
      replaced = STAND_IN;
    } else {
      replaced = withStandIns(item, vectors);
    }
    if (replaced !== item) (copy ??= { ...object })[key] = replaced;
  }
  return copy ?? value;
}

export class ListingSearchIndex {
  private readonly http: SearchHttp | undefined;

  constructor(
    private readonly client: Client,
    private readonly alias: string,
  ) {
    this.http = searchHttpOf(client);
  }

  /** One `_search` of the alias with these URL parameters. */
  private async send(body: Record<string, unknown>, params: Params): Promise<unknown> {
    if (this.http) {
      const query = Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&');
      return this.http.post(`/${encodeURIComponent(this.alias)}/_search${query ? `?${query}` : ''}`, searchBodyJson(body));
    }
    // No OpenTelemetry SDK is installed, so the client's per-request span is pure overhead on the hot path.
    return this.client.search({ index: this.alias, ...body, ...params } as never, { openTelemetry: { enabled: false } });
  }

  /** The hits, and the number of every match when the body tracks total hits. */
  async search(body: Record<string, unknown>, params: Params): Promise<{ hits: SearchHit[]; total?: number }> {
    const response = await this.send(body, params);
    const found = (response as { hits?: { hits?: SearchHit[]; total?: { value: number } } }).hits;
    return { hits: found?.hits ?? [], ...(found?.total ? { total: found.total.value } : {}) };
  }

  /**
   * The hits of a search for ids and scores only (the kNN search of search/semanticFusion.ts,
   * which asks for `docvalue_fields: ['id']`): each hit's id, `_score` and the names of the named
   * queries it matched.
   */
  async scoredIds(body: Record<string, unknown>): Promise<Array<{ id: string; score: number; matched: string[] }>> {
    const response = await this.send(body, { filter_path: 'hits.hits.fields.id,hits.hits._score,hits.hits.matched_queries' });
    type Hit = { fields?: { id?: unknown[] }; _score?: number; matched_queries?: string[] };
    const hits = (response as { hits?: { hits?: Hit[] } }).hits?.hits ?? [];
    return hits.flatMap((hit) => {
      const id = hit.fields?.id?.[0];
      return typeof id === 'string' && typeof hit._score === 'number' ? [{ id, score: hit._score, matched: hit.matched_queries ?? [] }] : [];
    });
  }

  /** The `id` doc values of the hits of `body` (which asks for `docvalue_fields: ['id']`), in order. */
  async ids(body: Record<string, unknown>): Promise<string[]> {
    const response = await this.send(body, { filter_path: 'hits.hits.fields.id' });
    const hits = (response as { hits?: { hits?: Array<{ fields?: { id?: unknown[] } }> } }).hits?.hits ?? [];
    return hits.map((hit) => hit.fields?.id?.[0]).filter((id): id is string => typeof id === 'string');
  }

  /** How many listings the filter clauses match (search/filterShare.ts). */
  async countMatching(filter: Record<string, unknown>[]): Promise<number> {
    const response = await this.client.count({ index: this.alias, query: { bool: { filter } } } as never, { openTelemetry: { enabled: false } });
    return response.count;
  }

  /** Live listings by their `resource` (the outcome import names listings so): id and every payTo. */
  async byResources(resources: readonly string[]): Promise<Map<string, { id: string; payTos: string[] }>> {
    const out = new Map<string, { id: string; payTos: string[] }>();
    for (let i = 0; i < resources.length; i += 1000) {
      const chunk = resources.slice(i, i + 1000);
      const response = await this.client.search<ListingDocument>({
        index: this.alias,
        size: chunk.length,
        query: { bool: { filter: [{ terms: { resource: chunk } }], must_not: [NOT_REMOVED] } },
        _source: ['id', 'resource', 'payment.payTo', 'accepts.payTo'],
      } as never);
      for (const hit of (response as { hits: { hits: Array<{ _source: ListingDocument }> } }).hits.hits) {
        const doc = hit._source;
        const payTos = [doc.payment?.payTo, ...(doc.accepts ?? []).map((a) => a.payTo)].filter((p): p is string => typeof p === 'string');
        out.set(doc.resource, { id: doc.id, payTos: [...new Set(payTos)] });
      }
    }
    return out;
  }
}
