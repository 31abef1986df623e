/**
 * How paid outcomes become a ranking feature (issue 45), pure: the past searches nearest a query
 * in meaning (store/elasticsearch/outcomeLinks.ts) vote for the listings paid for after them, under
 * the evidence rule of demand (docs/facilitator.md "Signals"): only distinct payers count, each
 * payer once per listing however often it paid (the per-payer cap), a listing needs `minPayers`
 * of them before it is lifted at all, and a vote halves every `halfLifeDays`. The lift is
 * bounded: `weight x (1 - exp(-votes / saturation))`, never more than `weight`. Self-payments and
 * circular value never become links (src/outcomes/outcomeRecorder.ts), so they vote for nothing.
 */
import type { NearOutcome } from '../store/elasticsearch/outcomeLinks.js';

export interface OutcomeTunables {
  weight: number;
  /** The similarity floor: a past search at it votes nothing, an identical one a whole vote. */
  minSimilarity: number;
  minPayers: number;
  saturation: number;
  halfLifeDays: number;
}

/** A listing's lift for one query: added to its relevance; shown by explain=1. */
export interface OutcomeLift {
  id: string;
  /** The relevance added, 0 < lift < weight. */
  boost: number;
  /** Distinct payers whose paid outcomes after similar searches voted. */
  payers: number;
}

const DAY_MS = 24 * 3600 * 1000;

export function outcomeLifts(near: readonly NearOutcome[], tunables: OutcomeTunables, now: number): OutcomeLift[] {
  if (tunables.weight <= 0) return [];
  // listing -> payer -> its strongest (newest) vote
  const votes = new Map<string, Map<string, number>>();
  for (const outcome of near) {
    const age = Math.max(0, now - Date.parse(outcome.at));
    if (!Number.isFinite(age)) continue;
    // Nearer in meaning votes more: 0 at the floor, 1 for the same search; halved every half-life.
    const nearness = Math.max(0, Math.min(1, (outcome.cosine - tunables.minSimilarity) / (1 - tunables.minSimilarity)));
    const vote = nearness * 0.5 ** (age / (tunables.halfLifeDays * DAY_MS));
    const payers = votes.get(outcome.listingId) ?? new Map<string, number>();
    const payer = outcome.payer.toLowerCase();
    payers.set(payer, Math.max(payers.get(payer) ?? 0, vote));
    votes.set(outcome.listingId, payers);
  }
  const lifts: OutcomeLift[] = [];
  for (const [id, payers] of votes) {
    if (payers.size < tunables.minPayers) continue;
    const total = [...payers.values()].reduce((a, b) => a + b, 0);
    const boost = tunables.weight * (1 - Math.exp(-total / tunables.saturation));
    if (boost > 0) lifts.push({ id, boost, payers: payers.size });
  }
  return lifts.sort((a, b) => b.boost - a.boost || a.id.localeCompare(b.id));
}
