/**
 * explain=1: the factors of a hit's score as Elasticsearch itself computed them, read from the
 * named-query scores of the executed search (non-scoring named probes `priceBoost`,
 * `recencyBoost`, `healthBoost` and `popularityBoost` evaluate the ranking's own functions:
 * search/rankingFactors.ts). Relevance is reported with text quality in it (text quality is what
 * makes stuffed text less relevant), so `score = relevance x priceBoost x recencyBoost x
 * healthBoost x popularityBoost` up to float rounding.
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
 * The factors are read from their named probes; relevance is what the score leaves once they are
 * divided out: `score / (priceBoost x recencyBoost x healthBoost x popularityBoost)`, the text
 * query's score with text quality in it exactly as Elasticsearch multiplied it. Reading it by
 * name instead (the text query named `relevance`, text quality probed) made Elasticsearch run the
 * whole text query again on every hit, its kNN search included, most of what explain cost (lab
 * journal 2026-11-27-explain-from-the-score.md); and that second kNN search, over segments searched concurrently, could pick other near-tied
 * neighbours than the one that ranked the hit. The tests read it by name to check this
 * (rankingFactors.namedRelevance).
 */
export function debugFromNamedScores(score: number, matched: Record<string, number> | string[] | undefined): Debug {
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
  // Every factor has a floor above 0; a 0 would leave relevance unknown.
  if (!(others > 0)) throw new MissingFactorError(FACTOR_NAMES.relevance);
  return { score, relevance: score / others, priceBoost, recencyBoost, healthBoost, popularityBoost };
}
