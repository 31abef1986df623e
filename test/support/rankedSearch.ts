/** Checks a buyer can make of any ranked search: explain multiplies out, and cursors page through every match once. */
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Debug } from '../../src/shapes/listing.js';
import { setRanking } from '../../src/search/rankingCommand.js';
import { RankingTunablesIndex } from '../../src/store/elasticsearch/rankingTunables.js';
import type { Harness } from './harness.js';

/** explain=1: relevance x priceBoost x recencyBoost x healthBoost x popularityBoost is the score within 1e-4. */
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
