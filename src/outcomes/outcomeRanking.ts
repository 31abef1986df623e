/**
 * The ranking side of paid outcomes (issue 45): for a query's vector, the listings paid for after
 * the past searches nearest it in meaning, as bounded lifts of their relevance (outcomeRules.ts).
 * One kNN search over the outcome links per ranked search, only while `outcomes.weight` > 0.
 */
import type { QueryVector } from '../semantic/queryEmbeddings.js';
import type { OutcomeLinkIndex } from '../store/elasticsearch/outcomeLinks.js';
import { outcomeLifts, type OutcomeLift, type OutcomeTunables } from './outcomeRules.js';

export interface OutcomeSettings extends OutcomeTunables {
  k: number;
}

export class OutcomeRanking {
  constructor(private readonly links: OutcomeLinkIndex) {}

  async liftsFor(vector: QueryVector, settings: OutcomeSettings, now: number): Promise<OutcomeLift[]> {
    if (settings.weight <= 0) return [];
    const near = await this.links.nearest(vector.values, vector.model, settings.k, settings.minSimilarity);
    return outcomeLifts(near, settings, now);
  }
}
