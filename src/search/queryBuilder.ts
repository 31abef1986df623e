/**
 * The Elasticsearch search bodies of a planned read (search/readPlan.ts). The same builders serve
 * the API and the benchmarks (which send these bodies straight to Elasticsearch), so both measure
 * one query. A ranked search is read one of three ways (the plan's `start`):
 * - `window`: the text query's best `window` matches rescored with the factors, read by position
 *   (no sort: Elasticsearch refuses one with a rescore);
 * - `tail`: past the window, the exact ranking of the other matches, paged with search_after;
 * - exact: every match scored with every factor (sort=price, sort=recent, no window).
 * A filter-only read (/discovery/resources) is its filters in the index's own order.
 */
import type { ReadPlan } from './readPlan.js';
import { factorProbes, factorRescore, rankedQuery } from './rankingFactors.js';

type Json = Record<string, unknown>;

/** What every search of the read shares: page size (one extra hit tells whether a next page exists), fields, total. */
function base(plan: ReadPlan, size: number): Json {
  const body: Json = { size, _source: { includes: plan.sourceFields }, track_total_hits: plan.request.countTotal === true };
  if (plan.request.offset) body.from = plan.request.offset;
  return body;
}

/**
 * explain=1 reads the factors from named probes in a post_filter: it only checks hits the query
 * already matched, and leaves the ranked query exactly as the plain search runs it. sort=recent
 * does not sort on _score; explain still reports the score of every hit.
 */
function withExplain(plan: ReadPlan, body: Json): Json {
  if (!plan.request.explain) return body;
  body.post_filter = factorProbes(plan.settings, plan.now);
  if (plan.request.sort === 'recent') body.track_scores = true;
  return body;
}

/** Hits `from`..`from + take` of the rank window: the text query's best matches, rescored with the factors. */
export function windowBody(plan: ReadPlan, relevance: Json, from: number, take: number): Json {
  const body = base(plan, take);
  body.query = { bool: { must: [relevance], filter: plan.filters.filter, must_not: plan.filters.must_not } };
  body.rescore = factorRescore(plan.settings, plan.now, plan.window);
  body.from = from;
  return withExplain(plan, body);
}

/**
 * A page in an exact order: every match ranked with every factor (`relevance`, a ranked search)
 * or, for a filter-only read, the index's order. Past the rank window (`tail`), the window's
 * listings are left out and `limit` listings asked for.
 */
export function exactBody(plan: ReadPlan, relevance: Json | undefined, tail?: { excludeIds: readonly string[]; limit: number }): Json {
  const body = base(plan, (tail?.limit ?? plan.request.limit) + 1);
  const { filter, must_not } = plan.filters;
  if (relevance) {
    const excluded = tail && tail.excludeIds.length > 0 ? [{ terms: { id: [...tail.excludeIds] } }] : [];
    body.query = { bool: { must: [rankedQuery(relevance, plan.settings, plan.now)], filter, must_not: [...must_not, ...excluded] } };
  } else {
    body.query = { bool: { filter, must_not } };
  }
  body.sort = plan.sort;
  if (plan.searchAfter) body.search_after = plan.searchAfter;
  return relevance ? withExplain(plan, body) : body;
}

/**
 * The ids of the rank window's listings, in window order: what a page past the window leaves out.
 * Doc values only: no stored document is read.
 */
export function windowIdsBody(plan: ReadPlan, relevance: Json): Json {
  return {
    size: plan.window,
    _source: false,
    docvalue_fields: ['id'],
    track_total_hits: false,
    query: { bool: { must: [relevance], filter: plan.filters.filter, must_not: plan.filters.must_not } },
    rescore: factorRescore(plan.settings, plan.now, plan.window),
    from: 0,
  };
}

/**
 * The body of the page the plan starts at, as far as one search answers it (a window page may be
 * filled from the tail). `relevance`: the plan's own, unless its neighbours had to be found first.
 */
export function pageBody(plan: ReadPlan, relevance: Json | undefined = plan.text?.relevance): Json {
  if (plan.text && !relevance) throw new Error('the relevance query waits for its kNN search of its own (CatalogSearch.buildRequest runs it)');
  if (relevance && plan.start.at === 'window') return windowBody(plan, relevance, plan.start.from, Math.min(plan.request.limit + 1, plan.window - plan.start.from));
  return exactBody(plan, relevance);
}
