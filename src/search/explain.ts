/**
 * explain=1: splits a hit's score into the factors Elasticsearch itself multiplied, read from the
 * explanation of the executed function_score query (no recomputation on our side, so the parts
 * always agree with `_score`).
 *
 * The explanation of `function_score` (score_mode multiply, boost_mode multiply) has this shape:
 *   "function score, product of:"
 *     [0] the text query's explanation                -> relevance
 *     [1] "min of:"
 *          "function score, score mode [multiply]"    -> one entry per matching function:
 *              "Function for field payment.amount:"   -> priceBoost
 *              "function score, product of:" (filter) -> recencyBoost
 *          "maxBoost"
 */
import type { Debug } from '../catalog/listing.js';

export interface Explanation {
  value: number;
  description: string;
  details?: Explanation[];
}

export class UnexpectedExplanationError extends Error {
  constructor(reason: string) {
    super(`cannot read the score explanation: ${reason}`);
    this.name = 'UnexpectedExplanationError';
  }
}

function find(node: Explanation, predicate: (n: Explanation) => boolean): Explanation | undefined {
  if (predicate(node)) return node;
  for (const child of node.details ?? []) {
    const found = find(child, predicate);
    if (found) return found;
  }
  return undefined;
}

const mentions = (node: Explanation, text: string): boolean => find(node, (n) => n.description.includes(text)) !== undefined;

const isFunctionScore = (n: Explanation): boolean =>
  n.description === 'function score, product of:' && n.details?.length === 2 && n.details[1]?.description === 'min of:';

export function debugFromExplanation(score: number, explanation: Explanation): Debug {
  const functionScore = find(explanation, isFunctionScore);
  if (!functionScore) throw new UnexpectedExplanationError('no function_score node');
  const [text, factors] = functionScore.details as [Explanation, Explanation];
  const combined = factors.details?.find((d) => d.description.startsWith('function score, score mode'));
  if (!combined) throw new UnexpectedExplanationError('no combined functions node');
  let priceBoost = 1;
  let recencyBoost = 1;
  for (const factor of combined.details ?? []) {
    if (mentions(factor, 'payment.amount')) priceBoost *= factor.value;
    else recencyBoost *= factor.value;
  }
  return { score, relevance: text.value, priceBoost, recencyBoost };
}
