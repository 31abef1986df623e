/**
 * The current figures of the lab, machine-readable: `lab/results/results.json`, one entry per
 * figure, keyed by `name`. A benchmark records its figure with `recordResult(...)` (the entry of
 * that name is replaced, a new name is appended), then `npx tsx lab/results/render.ts` rewrites
 * `lab/results/RESULTS.md` and the README's table. How each figure came about is the journal's
 * (`lab/journal/`); this file keeps only the latest value of each.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One figure as the lab last measured it. */
export interface Result {
  /** Stable key, dotted: `relevance.ndcg10.heldout`, `search.esCpuPerSearch.xReference.100k`. */
  name: string;
  /** What it is, in words, as the tables print it: "nDCG@10, held-out set". */
  label: string;
  value: number;
  /** `ms`, `x` (a multiple), `%`, `listings/s`, `req/s`, `s`, `CPU s/min`, `share`, `count`, or `` for a plain number. */
  unit: string;
  /** Which judged set or workload it was measured on: `heldout`, `100k listings, search mix`. */
  set: string;
  /** The workload in a few words, for the README's short table (`set` when absent). */
  short?: string;
  /** The table it belongs to: `Relevance`, `Search cost`, `Ingest and freshness`, ... */
  group: string;
  /** The day it was measured, `YYYY-MM-DD`. */
  date: string;
  /** The command that produced it, with today's command names (the journal keeps the names of the day). */
  command: string;
  /** The code measured, when known (a short or full commit id). */
  commit?: string;
  /** The target it is held to, in words (`<= 2x`, `>= 5,000/s`), when there is one. */
  target?: string;
  /** Shown in the README's short table too. */
  headline?: boolean;
  /** The journal entry with the run (a file name under lab/journal/). */
  journal?: string;
  /** What else a reader needs: the spread of runs, the machine. */
  note?: string;
}

export interface ResultsFile {
  version: 1;
  results: Result[];
}

export const RESULTS_PATH = fileURLToPath(new URL('./results.json', import.meta.url));

const REQUIRED: Array<keyof Result> = ['name', 'label', 'unit', 'set', 'group', 'date', 'command'];

/** Problems of one entry, one line each; empty when it is well formed. */
export function resultProblems(result: Result): string[] {
  const problems: string[] = [];
  for (const key of REQUIRED) {
    if (typeof result[key] !== 'string') problems.push(`${result.name ?? '?'}: ${key} must be a string`);
  }
  if (typeof result.name === 'string' && !/^[a-z0-9]+(?:[.:][A-Za-z0-9_-]+)*$/.test(result.name)) {
    problems.push(`${result.name}: name must be dotted words (letters, digits, - and _)`);
  }
  if (typeof result.value !== 'number' || !Number.isFinite(result.value)) problems.push(`${result.name}: value must be a finite number`);
  if (typeof result.date === 'string' && !/^\d{4}-\d{2}-\d{2}$/.test(result.date)) problems.push(`${result.name}: date must be YYYY-MM-DD`);
  return problems;
}

/** The file with `result` in place of the entry of its name (or appended): a new object, the input untouched. */
export function upsertResult(file: ResultsFile, result: Result): ResultsFile {
  const problems = resultProblems(result);
  if (problems.length > 0) throw new Error(`not a result: ${problems.join('; ')}`);
  const index = file.results.findIndex((r) => r.name === result.name);
  const results = index === -1 ? [...file.results, result] : file.results.map((r, i) => (i === index ? result : r));
  return { version: 1, results };
}

export function parseResults(text: string): ResultsFile {
  const parsed = JSON.parse(text) as Partial<ResultsFile>;
  if (parsed.version !== 1 || !Array.isArray(parsed.results)) throw new Error('results.json: expected {"version": 1, "results": [...]}');
  const problems = parsed.results.flatMap(resultProblems);
  const names = parsed.results.map((r) => r.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0) problems.push(`names given twice: ${[...new Set(twice)].join(', ')}`);
  if (problems.length > 0) throw new Error(`results.json:\n${problems.join('\n')}`);
  return parsed as ResultsFile;
}

export function readResults(path = RESULTS_PATH): ResultsFile {
  return parseResults(readFileSync(path, 'utf8'));
}

export function writeResults(file: ResultsFile, path = RESULTS_PATH): void {
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
}

/**
 * Records one figure in results.json (by name: the previous value of that name is replaced).
 * Benchmarks call it with what they measured and the command line they ran, e.g.
 *
 *   recordResult({ name: 'ingest.bulk.listingsPerSecond', label: 'Bulk ingest, validation to searchable',
 *     value: 11377, unit: 'listings/s', set: '100,000 generated listings', group: 'Ingest and freshness',
 *     date: today(), command: 'npm run bench:ingest', commit });
 */
export function recordResult(result: Result, path = RESULTS_PATH): ResultsFile {
  const next = upsertResult(readResults(path), result);
  writeResults(next, path);
  return next;
}

/** Today as results.json dates it (UTC). */
export function today(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}
