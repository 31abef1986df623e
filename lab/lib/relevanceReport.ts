/**
 * The tables bench-relevance prints (lab/bench/relevance.ts): per set, per category, the
 * queries whose first result is graded 0, --verbose's per-query lines, and the sets side by side.
 */
import type { Ranked } from './judgedDeployment.js';
import type { JudgedSet } from './judgedSet.js';
import { perQuery, summarize, summarizeTasks, RELEVANT_GRADE, type RunSummary } from './relevanceMetrics.js';

export const fixed = (n: number) => n.toFixed(3);
export const pct = (n: number, of: number) => `${n} (${((100 * n) / of).toFixed(1)}%)`;

export interface Column {
  label: string;
  runs: Ranked[];
}

export function printSummary(set: JudgedSet, setName: string, listings: number, columns: Column[]): void {
  const summaries = columns.map((c) => summarize(c.runs.map((r) => r.outcome)));
  const row = (measure: string, value: (s: RunSummary) => string) => `| ${measure} | ${summaries.map(value).join(' | ')} |`;
  const rows = [
    row('nDCG@10', (s) => fixed(s.ndcg10)),
    row('MRR@10 (first grade >= 2)', (s) => fixed(s.mrr10)),
    row('precision@3 (grade >= 2)', (s) => fixed(s.precision3)),
    row('first result graded 0', (s) => pct(s.grade0First, s.queries)),
    row('no result at all', (s) => String(s.noResults)),
    row('spam listing first', (s) => String(s.spamFirst)),
  ];
  process.stdout.write(
    `\n${setName}: ${listings} listings, ${set.queries.length} queries, ${set.spam.size} spam listings; ` +
      `relevant = grade >= ${RELEVANT_GRADE}, unjudged = grade 0\n\n` +
      `| measure | ${columns.map((c) => c.label).join(' | ')} |\n|---|${columns.map(() => '---|').join('')}\n` +
      rows.join('\n') +
      '\n',
  );
}

export function printCategories(columns: Column[]): void {
  const byCategory = new Map<string, number[][]>();
  columns[0]!.runs.forEach((run, i) => {
    for (const category of run.query.categories) {
      const entry = byCategory.get(category) ?? columns.map(() => []);
      columns.forEach((c, j) => entry[j]!.push(perQuery(c.runs[i]!.outcome).ndcg10));
      byCategory.set(category, entry);
    }
  });
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  process.stdout.write(
    `\nnDCG@10 by category (a query can be in several)\n\n| category | queries | ${columns.map((c) => c.label).join(' | ')} |\n|---|---|${columns.map(() => '---|').join('')}\n`,
  );
  for (const [category, v] of [...byCategory].sort(([a], [b]) => a.localeCompare(b))) {
    process.stdout.write(`| ${category} | ${v[0]!.length} | ${v.map((scores) => fixed(mean(scores))).join(' | ')} |\n`);
  }
}

export function printFirstResultFailures(label: string, runs: Ranked[], set: JudgedSet): void {
  const failures = runs.filter((r) => r.outcome.rankedGrades[0] === 0);
  if (failures.length === 0) return;
  process.stdout.write(`\n${label}: first result graded 0\n`);
  for (const run of failures) {
    const first = run.results[0]!;
    const spam = set.spam.has(first.resource) ? ' [SPAM]' : '';
    process.stdout.write(`  ${run.query.id} ${JSON.stringify(run.query.q)}${run.query.type ? ` type=${run.query.type}` : ''} -> ${first.resource}${spam}\n`);
  }
}

export function printVerbose(bm25: Ranked[], full: Ranked[], set: JudgedSet): void {
  process.stdout.write('\nper query: nDCG@10 / RR@10 / P@3 for the full ranking without -> with semantic retrieval; top 5 of the full ranking (grade, price in USDC, last settled)\n');
  bm25.forEach((run, i) => {
    const b = perQuery(run.outcome);
    const f = perQuery(full[i]!.outcome);
    const q = run.query;
    process.stdout.write(
      `\n${q.id} ${JSON.stringify(q.q)}${q.type ? ` type=${q.type}` : ''} [${q.categories.join(', ')}]  ` +
        `${fixed(b.ndcg10)}/${fixed(b.rr10)}/${fixed(b.p3)} -> ${fixed(f.ndcg10)}/${fixed(f.rr10)}/${fixed(f.p3)}\n`,
    );
    full[i]!.results.slice(0, 5).forEach((listing, rank) => {
      const grade = full[i]!.outcome.rankedGrades[rank];
      const usdc = Number(listing.payment.amount) / 1e6;
      const settled = listing.signals.lastSettled ? `settled ${listing.signals.lastSettled.slice(0, 16)}` : 'never settled';
      const spam = set.spam.has(listing.resource) ? ' [SPAM]' : '';
      process.stdout.write(`   ${rank + 1}. [${grade}] ${listing.resource}  ${usdc} USDC, ${settled}${spam}\n`);
    });
  });
}


export interface SetRun {
  name: string;
  /** Aggregates only: no per-query lines. */
  sealed: boolean;
  /** A set tuned on: the held-out sets' gap is measured against the tuning sets (pooled when several). */
  tuning: boolean;
  /** A task set (its queries name needs): printed in the task table, not in the side-by-side one. */
  tasks: boolean;
  set: JudgedSet;
  listings: number;
  columns: Column[];
  /** `--variants`: the full ranking with each fusion variant, same index. */
  variants: Column[];
}

/**
 * The headline: the full ranking on every set side by side and each held-out set's gap to the
 * tuning sets, pooled (every query of them once) when there are several.
 */
export function printSideBySide(runs: SetRun[]): void {
  if (runs.length === 0) return;
  const outcomes = (run: SetRun, column: number) => run.columns[column]!.runs.map((r) => r.outcome);
  const tuningRuns = runs.filter((run) => run.tuning);
  const pooled = tuningRuns.length > 1;
  const summaries = (column: number) => [
    ...runs.map((run) => summarize(outcomes(run, column))),
    ...(pooled ? [summarize(tuningRuns.flatMap((run) => outcomes(run, column)))] : []),
  ];
  const full = summaries(2);
  const lexical = summaries(1);
  const withoutPopularity = summaries(3);
  const names = [...runs.map((r) => r.name), ...(pooled ? ['tuning sets pooled'] : [])];
  const row = (measure: string, values: string[]) => `| ${measure} | ${values.join(' | ')} |`;
  const lines = [
    '',
    'side by side: the full ranking on the sets it was tuned on and on the held-out sets',
    '',
    `| measure | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---|').join('')}`,
    row('nDCG@10, full ranking', full.map((s) => fixed(s.ndcg10))),
    row('nDCG@10, full, semantic off', lexical.map((s) => fixed(s.ndcg10))),
    row('nDCG@10, full, popularity off', withoutPopularity.map((s) => fixed(s.ndcg10))),
    row('MRR@10, full, popularity off', withoutPopularity.map((s) => fixed(s.mrr10))),
    row('MRR@10', full.map((s) => fixed(s.mrr10))),
    row('precision@3', full.map((s) => fixed(s.precision3))),
    row('first result graded 0', full.map((s) => pct(s.grade0First, s.queries))),
    row('spam listing first', full.map((s) => String(s.spamFirst))),
  ];
  const tuning = pooled ? full.length - 1 : runs.findIndex((run) => run.tuning);
  if (tuning >= 0) {
    runs.forEach((run, i) => {
      if (!run.tuning) lines.push('', `${run.name}: nDCG@10 minus ${pooled ? 'the tuning sets pooled' : 'tuning'} nDCG@10: ${(full[i]!.ndcg10 - full[tuning]!.ndcg10).toFixed(3)}`);
    });
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `--variants`: each fusion variant on both sets, in one table. */
export function printVariants(runs: SetRun[]): void {
  if (runs[0]!.variants.length === 0) return;
  const lines = [
    '',
    `fusion variants (semantic.fusion weight (rankConstant)), the full ranking otherwise as shipped; ${runs.map((r) => r.name).join(' / ')}`,
    '',
    `| variant | ${runs.map((r) => `nDCG@10 ${r.name}`).join(' | ')} | first result graded 0 | spam first |`,
    `|---|${runs.map(() => '---|').join('')}---|---|`,
  ];
  runs[0]!.variants.forEach((variant, i) => {
    const summaries = runs.map((run) => summarize(run.variants[i]!.runs.map((r) => r.outcome)));
    lines.push(
      `| ${variant.label} | ${summaries.map((s) => fixed(s.ndcg10)).join(' | ')} | ${summaries.map((s) => s.grade0First).join(' / ')} | ${summaries.map((s) => s.spamFirst).join(' / ')} |`,
    );
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}


/**
 * The task sets (issue 45): Recall@5, completeness@5 and nDCG@5 of every column (BM25 alone first),
 * and each column's figures as a multiple of BM25 alone's.
 */
export function printTaskTable(runs: SetRun[]): void {
  if (runs.length === 0) return;
  const lines = ['', 'task sets: Recall@5 (share of needs with a listing in the first five) / completeness@5 (every need in the first five) / nDCG@5', ''];
  lines.push(`| column | ${runs.map((r) => r.name).join(' | ')} |`, `|---|${runs.map(() => '---|').join('')}`);
  const labels = runs[0]!.columns.map((c) => c.label);
  labels.forEach((label, i) => {
    const cells = runs.map((run) => {
      const column = run.columns.find((c) => c.label === label) ?? run.columns[i];
      const s = column ? summarizeTasks(column.runs.map((r) => r.outcome)) : undefined;
      const bm25 = summarizeTasks(run.columns[0]!.runs.map((r) => r.outcome));
      if (!s || !bm25) return '';
      const times = i === 0 ? '' : ` (${(s.recall5 / bm25.recall5).toFixed(2)}x / ${(s.complete5 / bm25.complete5).toFixed(2)}x)`;
      return `${fixed(s.recall5)} / ${fixed(s.complete5)} / ${fixed(s.ndcg5)}${times}`;
    });
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}
