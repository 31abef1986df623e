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

/** Stands for a query vector in the body's JSON until its own JSON goes in (a body whose strings hold it is serialized plainly). */
const VECTOR = '\u0000query_vector';
const VECTOR_JSON = /"\\u0000query_vector"/g;
/** Each query vector's JSON, kept while the vector is (the query-vector cache holds one array per query: semantic/queryEmbeddings.ts). */
const vectorJson = new WeakMap<readonly unknown[], string>();

/**
 * A search body as JSON, with each `query_vector` (384 numbers, nine tenths of a ranked search's
 * body) serialized once per vector array rather than on every read: the numbers' conversion to
 * text was most of the body's serialization (33-35 against 17-18 us per body of the bench:search mix, measured in
 * one process, lab journal 2026-12-03). The bytes are exactly JSON.stringify's. Vector arrays are
 * never changed after they are made.
 */
export function searchBodyJson(body: Record<string, unknown>): string {
  const vectors: string[] = [];
  let clash = false;
  const json = JSON.stringify(body, (key, value: unknown) => {
    if (key === 'query_vector' && Array.isArray(value)) {
      let text = vectorJson.get(value);
      if (text === undefined) vectorJson.set(value, (text = JSON.stringify(value)));
      vectors.push(text);
      return VECTOR;
    }
    if (typeof value === 'string' && value.includes(VECTOR)) clash = true;
    return value;
  });
  // A string of the body holding the stand-in (a query typed so): nothing is spliced.
  if (clash) return JSON.stringify(body);
  let next = 0;
  return vectors.length === 0 ? json : json.replace(VECTOR_JSON, () => vectors[next++]!);
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
