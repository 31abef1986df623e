/**
 * Paid outcomes (issue 45), assembled: the recorder (searches by a named payer, settlements that
 * link to them, the operator's import) and the ranking's lifts, over the outcome links index and
 * the payers' search trail.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import type { QueryEmbeddings } from '../semantic/queryEmbeddings.js';
import type { Stores } from '../store/stores.js';
import type { OutcomeLinkIndex } from '../store/elasticsearch/outcomeLinks.js';
import { OutcomeRanking } from './outcomeRanking.js';
import { OutcomeRecorder } from './outcomeRecorder.js';

export { OutcomeRecorder, type ImportedOutcome, type SettledOutcome, type SkipReason } from './outcomeRecorder.js';
export { OutcomeRanking } from './outcomeRanking.js';
export type { OutcomeLift } from './outcomeRules.js';

export interface Outcomes {
  recorder: OutcomeRecorder;
  ranking: OutcomeRanking;
  /** The links themselves (their refresh, and listing them for tests and reports). */
  links: OutcomeLinkIndex;
}

export function buildOutcomes(stores: Stores, queryEmbeddings: QueryEmbeddings, options: { windowMs: number; clock: Clock; logger: Logger }): Outcomes {
  const links = stores.elasticsearch.outcomeLinks();
  return {
    recorder: new OutcomeRecorder({ trail: stores.redis.outcomeTrail(), links, queryEmbeddings, ...options }),
    ranking: new OutcomeRanking(links),
    links,
  };
}
export { importOutcomes, parseOutcomeLines, type OutcomeImportResult } from './outcomeImport.js';
