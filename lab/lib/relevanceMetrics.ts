/**
 * Ranking-quality measures of the relevance benchmark (lab/eval/relevance/README.md), over graded
 * judgments 0-3. A listing nobody judged for a query counts as grade 0. "Relevant" means grade >= 2
 * (does the job); grade 1 (related) only counts towards nDCG.
 */

export const RELEVANT_GRADE = 2;

/** Standard exponential-gain DCG: sum of (2^g - 1) / log2(i + 1) over ranks i = 1..k. */
function dcg(grades: number[], k: number): number {
  return grades.slice(0, k).reduce((sum, grade, i) => sum + (2 ** grade - 1) / Math.log2(i + 2), 0);
}

/** nDCG@k; the ideal ranking is every judged grade of the query, best first. 0 when nothing is judged above 0. */
export function ndcgAt(k: number, rankedGrades: number[], judgedGrades: number[]): number {
  const ideal = dcg([...judgedGrades].sort((a, b) => b - a), k);
  return ideal === 0 ? 0 : dcg(rankedGrades, k) / ideal;
}

/** 1 / rank of the first relevant result among those given (0 when none is). */
export function reciprocalRank(rankedGrades: number[]): number {
  const first = rankedGrades.findIndex((grade) => grade >= RELEVANT_GRADE);
  return first === -1 ? 0 : 1 / (first + 1);
}

/** Share of the first k ranks holding a relevant result (a missing result counts as not relevant). */
export function precisionAt(k: number, rankedGrades: number[]): number {
  return rankedGrades.slice(0, k).filter((grade) => grade >= RELEVANT_GRADE).length / k;
}

export interface QueryOutcome {
  /** Grades of the results in rank order (unjudged = 0). */
  rankedGrades: number[];
  /** Every grade judged for the query. */
  judgedGrades: number[];
  /** Whether the first result is a listing of the set's spam list. */
  spamFirst: boolean;
}

export interface RunSummary {
  queries: number;
  ndcg10: number;
  mrr10: number;
  precision3: number;
  /** Queries whose first result is judged 0 (or unjudged); queries without any result are counted apart. */
  grade0First: number;
  noResults: number;
  spamFirst: number;
}

export function perQuery(outcome: QueryOutcome): { ndcg10: number; rr10: number; p3: number } {
  const top = outcome.rankedGrades.slice(0, 10);
  return { ndcg10: ndcgAt(10, top, outcome.judgedGrades), rr10: reciprocalRank(top), p3: precisionAt(3, top) };
}

export function summarize(outcomes: QueryOutcome[]): RunSummary {
  const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  const scores = outcomes.map(perQuery);
  return {
    queries: outcomes.length,
    ndcg10: mean(scores.map((s) => s.ndcg10)),
    mrr10: mean(scores.map((s) => s.rr10)),
    precision3: mean(scores.map((s) => s.p3)),
    grade0First: outcomes.filter((o) => o.rankedGrades.length > 0 && o.rankedGrades[0] === 0).length,
    noResults: outcomes.filter((o) => o.rankedGrades.length === 0).length,
    spamFirst: outcomes.filter((o) => o.spamFirst).length,
  };
}
