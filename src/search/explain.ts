/**
 * explain=1: the factors of a hit's score as Elasticsearch itself computed them, read from the
 * named-query scores of the executed search (the text query is named `relevance`; non-scoring named
 * probes `textQuality`, `priceBoost`, `recencyBoost`, `healthBoost` and `popularityBoost` evaluate the same functions:
 * search/rankingFactors.ts). Relevance is reported with text quality in it (text quality is what
 * makes stuffed text less relevant), so `score = relevance x priceBoost x recencyBoost x healthBoost x popularityBoost`
 * up to float rounding.
 */
import type { Debug } from '../shapes/listing.js';
import { FACTOR_NAMES } from './rankingFactors.js';

/** How far a named relevance may be from the one the score implies and still be read as is (float rounding). */
const RELATIVE_TOLERANCE = 1e-4;

export class MissingFactorError extends Error {
  constructor(name: string) {
    super(`explain: Elasticsearch reported no score for the named query "${name}"`);
    this.name = 'MissingFactorError';
  }
}

/**
 * `withTextQuality`: the ranking multiplies text quality in (stuffing not off), so its probe must be there.
 *
 * Elasticsearch reads named scores by running the named queries again on the hits, and a kNN
 * clause's approximate search, run again over segments searched concurrently, can pick other
 * neighbours among near ties (identical texts at 100k listings) than the search that ranked the
 * hit: the hit then comes without its `relevance` score, or with one that lacks the kNN part
 * (lower than the score says: 2.4 for a hit ranked at 24.7). The hit's score is the record of the
 * relevance it was ranked by, and `score / (priceBoost x recencyBoost x healthBoost x
 * popularityBoost)` is that relevance (text quality in it) exactly as Elasticsearch multiplied it.
 * A named score that agrees within 1e-4 is reported as read. Every other factor is a probe over
 * every listing, computed once, and is always reported.
 */
export function debugFromNamedScores(score: number, matched: Record<string, number> | string[] | undefined, withTextQuality: boolean): Debug {
  const scores = matched && !Array.isArray(matched) ? matched : {};
  const factor = (name: string): number => {
    const value = scores[name];
    if (typeof value !== 'number') throw new MissingFactorError(name);
    return value;
  };
  const priceBoost = factor(FACTOR_NAMES.price);
  const recencyBoost = factor(FACTOR_NAMES.recency);
  const healthBoost = factor(FACTOR_NAMES.health);
  const popularityBoost = factor(FACTOR_NAMES.popularity);
  const others = priceBoost * recencyBoost * healthBoost * popularityBoost;
  const named = scores[FACTOR_NAMES.relevance];
  const read = typeof named === 'number' ? named * (withTextQuality ? factor(FACTOR_NAMES.textQuality) : 1) : undefined;
  const ranked = others > 0 ? score / others : undefined;
  const agrees = read !== undefined && (ranked === undefined || Math.abs(read - ranked) <= RELATIVE_TOLERANCE * Math.max(Math.abs(ranked), Number.MIN_VALUE));
  const relevance = agrees ? read : ranked;
  if (relevance === undefined) throw new MissingFactorError(FACTOR_NAMES.relevance);
  return { score, relevance, priceBoost, recencyBoost, healthBoost, popularityBoost };
}
