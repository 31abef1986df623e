/**
 * The factors of the ranked score (docs/catalog-reads.md, "Ranking"):
 * `score = text relevance x text quality x price factor x recency factor x health factor x popularity factor`.
 * Built two ways from the same functions:
 * - exactly, as function_scores around the text query, scoring every match (`rankedQuery`: the
 *   price and recency sorts, and pages past the window);
 * - over a window, as a rescore of the text query's best matches (`factorRescore`), so the
 *   factors are computed for a bounded number of listings however many match (the window's
 *   size and pages: `rankWindowOf` and `windowIdsBody` in search/queryBuilder.ts;
 *   docs/catalog-reads.md, "Rank window").
 * explain=1 reads each factor from Elasticsearch's own scoring (`factorProbes`).
 */
import type { RankingSettings } from './rankingSettings.js';

type Json = Record<string, unknown>;

/** The listing's 7-day health uptime (absent until it was checked once). */
const UPTIME = 'signals.health.uptime7d';

/**
 * Names under which Elasticsearch reports its score of each part: explain=1 reads the factors'
 * probes (explain.ts); the tests also name the text query `relevance` and probe text quality.
 */
export const FACTOR_NAMES = {
  relevance: 'relevance',
  textQuality: 'textQuality',
  price: 'priceBoost',
  recency: 'recencyBoost',
  health: 'healthBoost',
  popularity: 'popularityBoost',
} as const;

/** Distinct payers of the last 7 days (absent: none seen). */
const PAYERS = 'signals.uniquePayers7d';

/**
 * A factor bounded to [floor, 1]: `floor + (1 - floor) x decay`, as function_score functions
 * summed (score_mode sum). A weight of 0 is left out rather than sent.
 */
function floored(floor: number, decay: Json, filter?: Json): Json[] {
  const withFilter = (fn: Json) => (filter ? { filter, ...fn } : fn);
  const parts: Json[] = [];
  if (floor > 0) parts.push(withFilter({ weight: floor }));
  if (floor < 1) parts.push(withFilter({ ...decay, weight: 1 - floor }));
  return parts;
}

/**
 * The health factor (issue 13): exactly 1 (a weight) for a listing never checked or at/above the
 * threshold; below it `floor + (1 - floor) x uptime / threshold`, as a weight plus a linear
 * field_value_factor, under mutually exclusive filters so every listing gets exactly one factor.
 */
function healthFunctions({ threshold, floor }: RankingSettings['health']): Json[] {
  const below = { range: { [UPTIME]: { lt: threshold } } };
  const functions: Json[] = [{ filter: { bool: { must_not: below } }, weight: 1 }];
  // threshold 0: nothing is below it (uptime is never negative), so the factor is 1 everywhere.
  if (threshold > 0 && floor > 0) functions.push({ filter: below, weight: floor });
  if (threshold > 0 && floor < 1) {
    functions.push({ filter: below, field_value_factor: { field: UPTIME, factor: (1 - floor) / threshold, modifier: 'none', missing: 0 } });
  }
  return functions;
}

/**
 * The popularity factor (issue 24): exactly 1 without payers (or with the weight 0); `1 + weight x
 * log10(1 + payers) / log10(1 + saturation)` below saturation, as a weight plus a log1p
 * field_value_factor; `1 + weight` at or above it, under mutually exclusive filters like health's.
 * No script: the Elasticsearch it runs on may lack the scripting module.
 */
function popularityFunctions({ weight, saturation }: RankingSettings['popularity']): Json[] {
  if (weight === 0) return [{ weight: 1 }];
  const saturated = { range: { [PAYERS]: { gte: saturation } } };
  return [
    { filter: saturated, weight: 1 + weight },
    { filter: { bool: { must_not: saturated } }, weight: 1 },
    {
      filter: { bool: { must_not: saturated } },
      field_value_factor: { field: PAYERS, modifier: 'log1p', factor: 1, missing: 0 },
      weight: weight / Math.log10(1 + saturation),
    },
  ];
}

function factorFunctions(settings: RankingSettings, now: number): { price: Json[]; recency: Json[]; health: Json[]; popularity: Json[] } {
  const { price, recency } = settings;
  const settled = { exists: { field: 'signals.lastSettled' } };
  return {
    price: floored(price.floor, { [price.function]: { 'payment.amount': { origin: price.origin, scale: price.scale, offset: price.offset, decay: price.decay } } }),
    // Mutually exclusive filters: every listing gets exactly one recency factor.
    recency: [
      ...floored(
        recency.floor,
        { [recency.function]: { 'signals.lastSettled': { origin: now, scale: recency.scale, offset: recency.offset, decay: recency.decay } } },
        settled,
      ),
      { filter: { bool: { must_not: settled } }, weight: recency.neverSettled },
    ],
    health: healthFunctions(settings.health),
    popularity: popularityFunctions(settings.popularity),
  };
}

/** `query` x (the sum of `functions`): one factor of the ranked product. */
const times = (query: Json, functions: Json[]): Json => ({ function_score: { query, functions, score_mode: 'sum', boost_mode: 'multiply' } });

/**
 * Text quality (1 minus the share of stuffed words; listings written before it count as 1) squared
 * or linear by `stuffing`; absent when stuffing is off. Stuffed text is demoted with the factors.
 */
function textQualityFunctions(settings: RankingSettings): Json[] | undefined {
  if (settings.stuffing === 'off') return undefined;
  return [{ field_value_factor: { field: 'textQuality', modifier: settings.stuffing, missing: 1 } }];
}

/** `query` x text quality x price x recency x health x popularity, each factor a function_score around the previous one. */
function withFactors(query: Json, settings: RankingSettings, now: number): Json {
  const quality = textQualityFunctions(settings);
  const factors = factorFunctions(settings, now);
  const weighed = quality ? times(query, quality) : query;
  return times(times(times(times(weighed, factors.price), factors.recency), factors.health), factors.popularity);
}

/**
 * The exact ranked query: every match scored with every factor. Each factor is a function_score
 * around the previous one (score_mode sum inside a factor, boost_mode multiply between them),
 * because a decay cannot be floored inside a single function_score's product.
 */
export function rankedQuery(text: Json, settings: RankingSettings, now: number): Json {
  return withFactors(text, settings, now);
}

/**
 * The factors as a rescore of the text query's `window` best matches: match_all (score 1) times
 * every factor, multiplied into the text score. A listing in the window scores exactly what
 * `rankedQuery` gives it.
 */
export function factorRescore(settings: RankingSettings, now: number, window: number): Json {
  return {
    window_size: window,
    query: { rescore_query: withFactors({ match_all: {} }, settings, now), query_weight: 1, rescore_query_weight: 1, score_mode: 'multiply' },
  };
}

/**
 * The text query named `relevance`: with `textQualityProbe`, the parts of explain's relevance as
 * Elasticsearch scores them by name. explain=1 does not send them (it reads relevance from the
 * score, search/explain.ts); the tests do, to check it.
 */
export function namedRelevance(text: Json): Json {
  const [kind, body] = Object.entries(text)[0] as [string, Json];
  return { [kind]: { ...body, _name: FACTOR_NAMES.relevance } };
}

/** A named function_score over every listing: its score is the functions' value for the hit. */
const probe = (name: string, functions: Json[], scoreMode = 'sum'): Json => ({
  function_score: { query: { match_all: {} }, functions, score_mode: scoreMode, boost_mode: 'replace', _name: name },
});

/** Text quality as a named probe (`namedRelevance`); undefined when stuffing is off (a factor of 1). */
export function textQualityProbe(settings: RankingSettings): Json | undefined {
  const quality = textQualityFunctions(settings);
  return quality ? probe(FACTOR_NAMES.textQuality, quality, 'multiply') : undefined;
}

/**
 * explain=1 only: the price, recency, health and popularity functions again, each alone over
 * match_all and named, as a post_filter (no effect on matching: they match every document; none
 * on the score: filters do not score). With include_named_queries_score Elasticsearch reports, per
 * hit, the score of each: the factors it multiplied into `_score`.
 */
export function factorProbes(settings: RankingSettings, now: number): Json {
  const factors = factorFunctions(settings, now);
  // A conjunction: as `should` clauses Elasticsearch iterated them for every document (3-4x the search).
  return {
    bool: {
      filter: [
        probe(FACTOR_NAMES.price, factors.price),
        probe(FACTOR_NAMES.recency, factors.recency),
        probe(FACTOR_NAMES.health, factors.health),
        probe(FACTOR_NAMES.popularity, factors.popularity),
      ],
    },
  };
}
