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

/** Share of the needs with a listing of theirs among the first k resources (task queries). */
export function needRecallAt(k: number, resources: readonly string[], needs: readonly (readonly string[])[]): number {
  if (needs.length === 0) return 0;
  const top = new Set(resources.slice(0, k));
  return needs.filter((need) => need.some((resource) => top.has(resource))).length / needs.length;
}

export interface QueryOutcome {
  /** Grades of the results in rank order (unjudged = 0). */
  rankedGrades: number[];
  /** Task queries only: per need, whether a listing of it is among the first five. */
  needsCovered5?: boolean[];
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

/**
 * The task measures over the queries that name needs: Recall@5 (each query's share of needs
 * covered in the first five, averaged over queries), completeness@5 (share of queries with every
 * need covered) and nDCG@5 on the graded judgments.
 */
export interface TaskSummary {
  queries: number;
  recall5: number;
  complete5: number;
  ndcg5: number;
}

export function summarizeTasks(outcomes: QueryOutcome[]): TaskSummary | undefined {
  const tasks = outcomes.filter((o) => o.needsCovered5 !== undefined && o.needsCovered5.length > 0);
  if (tasks.length === 0) return undefined;
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  return {
    queries: tasks.length,
    recall5: mean(tasks.map((o) => o.needsCovered5!.filter(Boolean).length / o.needsCovered5!.length)),
    complete5: mean(tasks.map((o) => (o.needsCovered5!.every(Boolean) ? 1 : 0))),
    ndcg5: mean(tasks.map((o) => ndcgAt(5, o.rankedGrades.slice(0, 5), o.judgedGrades))),
  };
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
