/** Checks a buyer can make of any ranked search: explain multiplies out, and cursors page through every match once. */
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Debug } from '../../src/shapes/listing.js';
import { setRanking } from '../../src/search/rankingCommand.js';
import { namedRelevance, textQualityProbe } from '../../src/search/rankingFactors.js';
import type { ReadRequest } from '../../src/search/readRequest.js';
import { RankingTunablesIndex } from '../../src/store/elasticsearch/rankingTunables.js';
import type { Harness } from './harness.js';

type Json = Record<string, unknown>;

/**
 * Elasticsearch's own relevance per listing of a ranked search's first page (sort=rank), text
 * quality in it: the body the service sends for explain=1, with its text query named `relevance`
 * and text quality probed by name, sent straight to Elasticsearch. explain=1 reports relevance
 * as the score with the factors divided out (search/explain.ts); this is what it must equal.
 */
export async function relevanceByName(h: Harness, read: ReadRequest): Promise<Map<string, number>> {
  const { body } = await h.container.search.search.buildRequest({ ...read, explain: true });
  assert.ok(body.rescore, 'a first page of the rank window: its query is the text query, the factors a rescore');
  const must = (body.query as { bool: { must: Json[] } }).bool.must;
  must[0] = namedRelevance(must[0]!);
  const quality = textQualityProbe(await h.container.search.ranking.current());
  if (quality) (body.post_filter as { bool: { filter: Json[] } }).bool.filter.push(quality);
  const found = await h.elasticsearch.search({ index: h.config.listingsAlias, ...body, include_named_queries_score: true } as never);
  return new Map(
    found.hits.hits.map((hit) => {
      const scores = hit.matched_queries as unknown as Record<string, number>;
      return [hit._id!, scores.relevance! * (quality ? scores.textQuality! : 1)];
    }),
  );
}

/**
 * explain=1: relevance x priceBoost x recencyBoost x healthBoost x popularityBoost is the score
 * within 1e-4. The service derives relevance from the score (search/explain.ts), so what this
 * still catches is a result without a complete debug block or numbers the response mangled;
 * `relevanceByName` checks relevance against Elasticsearch's own.
 */
export function assertExplainMultiplies(debug: Debug | undefined, context: string): void {
  assert.ok(debug, `${context}: no debug`);
  const product = debug.relevance * debug.priceBoost * debug.recencyBoost * debug.healthBoost * debug.popularityBoost;
  assert.ok(Math.abs(product - debug.score) <= 1e-4 * Math.max(1, debug.score), `${context}: ${JSON.stringify(debug)}`);
}

/** The ids of every page of a read, following `nextCursor` (at most 50 pages); `fetchPage` gets the cursor parameter to append. */
export async function idsOfEveryPage(fetchPage: (cursorParameter: string) => Promise<{ results: Array<{ id: string }>; nextCursor?: string }>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const next = await fetchPage(cursor ? `&cursor=${encodeURIComponent(cursor)}` : '');
    seen.push(...next.results.map((r) => r.id));
    if (!next.nextCursor) break;
    cursor = next.nextCursor;
  }
  return seen;
}

export interface RankedPage<R> {
  results: R[];
  nextCursor?: string;
}

/**
 * What a ranked-search test does with one harness: change a tunable as `npm run ranking -- set`
 * does and apply it at once, read a page or its results, and name results by their fixture keys
 * (`id`). `harness` is a getter: the harness starts in the suite's `before`.
 */
export function rankedSearchSession<R extends { id: string }>(harness: () => Harness, id: Record<string, string>) {
  const page = async (q: string, extra = ''): Promise<RankedPage<R>> =>
    (await request(harness().app).get(`/discovery/search?q=${encodeURIComponent(q)}${extra}`).expect(200)).body as RankedPage<R>;
  return {
    set: async (key: string, value: string) => {
      const h = harness();
      await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), key, value);
      await h.container.search.ranking.refresh();
    },
    page,
    search: async (q: string, extra = '') => (await page(q, extra)).results,
    names: (results: R[]) => results.map((r) => Object.keys(id).find((k) => id[k] === r.id) ?? r.id).join(', '),
  };
}
