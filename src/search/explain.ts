/**
 * explain=1: the factors of a hit's score as Elasticsearch itself computed them, read from the
 * named-query scores of the executed search (queryBuilder names the text query `relevance` and
 * adds non-scoring named probes `priceBoost`, `recencyBoost` and `healthBoost` evaluating the same
 * functions). Since `_score = relevance x priceBoost x recencyBoost x healthBoost` (boost_mode multiply),
 * the parts agree with `_score` up to float rounding.
 */
import type { Debug } from '../shapes/listing.js';
import { FACTOR_NAMES } from './queryBuilder.js';

export class MissingFactorError extends Error {
  constructor(name: string) {
    super(`explain: Elasticsearch reported no score for the named query "${name}"`);
    this.name = 'MissingFactorError';
  }
}

export function debugFromNamedScores(score: number, matched: Record<string, number> | string[] | undefined): Debug {
  const scores = matched && !Array.isArray(matched) ? matched : {};
  const factor = (name: string): number => {
    const value = scores[name];
    if (typeof value !== 'number') throw new MissingFactorError(name);
    return value;
  };
  return {
    score,
    relevance: factor(FACTOR_NAMES.relevance),
    priceBoost: factor(FACTOR_NAMES.price),
    recencyBoost: factor(FACTOR_NAMES.recency),
    healthBoost: factor(FACTOR_NAMES.health),
  };
}
