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

export class MissingFactorError extends Error {
  constructor(name: string) {
    super(`explain: Elasticsearch reported no score for the named query "${name}"`);
    this.name = 'MissingFactorError';
  }
}

/**
 * `withTextQuality`: the ranking multiplies text quality in (stuffing not off), so its probe must be there.
 *
 * A hit can come without its `relevance` score: Elasticsearch runs the named queries again to read
 * their scores, and a kNN clause's approximate search, run again over segments searched
 * concurrently, can pick other neighbours among near ties (identical texts at 100k listings) than
 * the search that ranked the hit. The hit's score is then the only record of its relevance, and
 * `score / (priceBoost x recencyBoost x healthBoost x popularityBoost)` is that relevance (text
 * quality in it) exactly as Elasticsearch multiplied it: the product still equals the score.
 * Every other factor is a probe over every listing and is always reported.
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
  let relevance: number;
  if (typeof named === 'number') relevance = named * (withTextQuality ? factor(FACTOR_NAMES.textQuality) : 1);
  else if (others > 0) relevance = score / others;
  else throw new MissingFactorError(FACTOR_NAMES.relevance);
  return { score, relevance, priceBoost, recencyBoost, healthBoost, popularityBoost };
}
