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

/** `withTextQuality`: the ranking multiplies text quality in (stuffing not off), so its probe must be there. */
export function debugFromNamedScores(score: number, matched: Record<string, number> | string[] | undefined, withTextQuality: boolean): Debug {
  const scores = matched && !Array.isArray(matched) ? matched : {};
  const factor = (name: string): number => {
    const value = scores[name];
    if (typeof value !== 'number') throw new MissingFactorError(name);
    return value;
  };
  return {
    score,
    relevance: factor(FACTOR_NAMES.relevance) * (withTextQuality ? factor(FACTOR_NAMES.textQuality) : 1),
    priceBoost: factor(FACTOR_NAMES.price),
    recencyBoost: factor(FACTOR_NAMES.recency),
    healthBoost: factor(FACTOR_NAMES.health),
    popularityBoost: factor(FACTOR_NAMES.popularity),
  };
}
