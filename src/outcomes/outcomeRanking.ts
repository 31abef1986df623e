/**
 * The ranking side of paid outcomes (issue 45): for a query's vector, the listings paid for after
 * the past searches nearest it in meaning, as bounded lifts of their relevance (outcomeRules.ts).
 * One kNN search over the outcome links per ranked search, only while `outcomes.weight` > 0 and
 * the links index holds any link (`active`; counted at most once a second while it holds none).
 */
import type { QueryVector } from '../semantic/queryEmbeddings.js';
import type { OutcomeLinkIndex } from '../store/elasticsearch/outcomeLinks.js';
import { outcomeLifts, type OutcomeLift, type OutcomeTunables } from './outcomeRules.js';

export interface OutcomeSettings extends OutcomeTunables {
  k: number;
}

export class OutcomeRanking {
  constructor(private readonly links: OutcomeLinkIndex) {}

  /** Whether a ranked search should look up lifts at all (before it embeds the query for them). */
  async active(settings: Pick<OutcomeSettings, 'weight'>): Promise<boolean> {
    return settings.weight > 0 && (await this.links.hasLinks());
  }

  async liftsFor(vector: QueryVector, settings: OutcomeSettings, now: number): Promise<OutcomeLift[]> {
    if (!(await this.active(settings))) return [];
    const near = await this.links.nearest(vector.values, vector.model, settings.k, settings.minSimilarity);
    return outcomeLifts(near, settings, now);
  }
}
