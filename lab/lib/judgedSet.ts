/**
 * The judged relevance set of eval/relevance/ (README there): listings in the import format and
 * queries with graded judgments keyed by the listing's `resource`. Loading checks that the two files
 * agree, so a typo in a judgment fails loudly instead of silently counting as grade 0.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseListingFile, type ParsedEntry } from '../../src/door.js';
import { RELEVANT_GRADE } from './relevanceMetrics.js';

export const JUDGED_SET_DIR = fileURLToPath(new URL('../eval/relevance/', import.meta.url));
/**
 * The second tuning set (lab/eval/tuning2/README.md), written by another hand without reading the ranking:
 * tuned on together with eval/relevance, so a choice has to hold on both samples of the catalog.
 */
export const TUNING2_SET_DIR = fileURLToPath(new URL('../eval/tuning2/', import.meta.url));
/** Every set ranking may be tuned on; the held-out sets below never are. */
export const TUNING_SET_DIRS = [JUDGED_SET_DIR, TUNING2_SET_DIR] as const;
/** The held-out set (lab/eval/heldout/README.md): it measures, it is never tuned on. */
export const HELDOUT_SET_DIR = fileURLToPath(new URL('../eval/heldout/', import.meta.url));
/**
 * The second held-out set (lab/eval/heldout2/README.md), written later by another hand: its benchmark
 * output is aggregates only, so nobody reads a failing query of it and tunes for that.
 */
export const SEALED_HELDOUT_SET_DIR = fileURLToPath(new URL('../eval/heldout2/', import.meta.url));
/**
 * The task set (lab/eval/tasks/README.md): task queries of one to three needs over a catalog of its
 * own, in two halves; `tuning.json` is tuned on, `heldout.json` only measured (its benchmark output
 * is aggregates only), and `history.jsonl` holds past task queries with the listings paid for after them.
 */
export const TASK_SET_DIR = fileURLToPath(new URL('../eval/tasks/', import.meta.url));
export type TaskHalf = 'tuning' | 'heldout';

export interface JudgedQuery {
  id: string;
  q: string;
  type?: 'http' | 'mcp';
  categories: string[];
  intent: string;
  /** resource -> grade 0..3 */
  judgments: Record<string, number>;
  /** Task queries only: one entry per need, the resources any of which satisfies it. */
  needs?: string[][];
}

export interface JudgedSet {
  /** The time the listings' `lastSettled` dates are written against. */
  referenceTime: Date;
  /** Listing inputs, as parsed by the import command. */
  entries: ParsedEntry[];
  /** Resources of the keyword-stuffing / fake-activity attacks (judged 0 for every query). */
  spam: Set<string>;
  queries: JudgedQuery[];
}

function resourceOf(entry: ParsedEntry): string | undefined {
  if ('error' in entry) return undefined;
  const resource = (entry.value as { resource?: unknown }).resource;
  return typeof resource === 'string' ? resource : undefined;
}

export function loadJudgedSet(dir = JUDGED_SET_DIR, queriesFile = 'queries.json'): JudgedSet {
  const entries = parseListingFile(readFileSync(`${dir}/listings.jsonl`, 'utf8'));
  const raw = JSON.parse(readFileSync(`${dir}/${queriesFile}`, 'utf8')) as { referenceTime: string; spam: string[]; queries: JudgedQuery[] };
  const resources = new Set<string>();
  const problems: string[] = [];
  for (const entry of entries) {
    const resource = resourceOf(entry);
    if (resource === undefined) problems.push(`listing #${entry.index}: no resource`);
    else if (resources.has(resource)) problems.push(`listing #${entry.index}: resource ${resource} appears twice`);
    else resources.add(resource);
  }
  const referenceTime = new Date(raw.referenceTime);
  if (Number.isNaN(referenceTime.getTime())) problems.push(`referenceTime ${JSON.stringify(raw.referenceTime)} is not a date`);
  for (const resource of raw.spam) if (!resources.has(resource)) problems.push(`spam: unknown resource ${resource}`);
  const ids = new Set<string>();
  for (const query of raw.queries) {
    if (ids.has(query.id)) problems.push(`${query.id}: duplicate id`);
    ids.add(query.id);
    for (const [resource, grade] of Object.entries(query.judgments)) {
      if (!resources.has(resource)) problems.push(`${query.id}: judged resource ${resource} is not a listing of the set`);
      if (!Number.isInteger(grade) || grade < 0 || grade > 3) problems.push(`${query.id}: grade ${grade} for ${resource} is not 0..3`);
      if (grade > 0 && raw.spam.includes(resource)) problems.push(`${query.id}: spam listing ${resource} judged ${grade}`);
    }
    for (const need of query.needs ?? []) {
      if (need.length === 0) problems.push(`${query.id}: an empty need`);
      for (const resource of need) if (!resources.has(resource)) problems.push(`${query.id}: needed resource ${resource} is not a listing of the set`);
    }
  }
  if (problems.length > 0) throw new Error(`${dir} is inconsistent:\n${problems.join('\n')}`);
  return { referenceTime, entries, spam: new Set(raw.spam), queries: raw.queries };
}

/**
 * The entries with every `lastSettled` moved by (now - referenceTime): listings keep the age the set
 * gives them ("settled 3 hours ago"), so the recency factor scores the same whenever the benchmark runs.
 */
export function entriesAsOf(set: JudgedSet, now: Date): ParsedEntry[] {
  const shift = now.getTime() - set.referenceTime.getTime();
  return set.entries.map((entry) => {
    if ('error' in entry) return entry;
    const value = entry.value as { signals?: { lastSettled?: unknown } | null };
    const lastSettled = value.signals?.lastSettled;
    if (typeof lastSettled !== 'string') return entry;
    const moved = new Date(new Date(lastSettled).getTime() + shift).toISOString();
    return { index: entry.index, value: { ...value, signals: { ...value.signals, lastSettled: moved } } };
  });
}

/** One half of the task set: its listings and that half's queries (each with its needs). */
export function loadTaskSet(half: TaskHalf): JudgedSet {
  return loadJudgedSet(TASK_SET_DIR, `${half}.json`);
}

/** A paid outcome of the task set's history (lab/eval/tasks/history.jsonl): the import shape of `npm run import:outcomes`. */
export interface HistoryOutcome {
  q: string;
  resource: string;
  payer: string;
  at: string;
}

/** The task set's history as written, each `at` moved by (now - referenceTime) like the listings' dates. */
export function taskHistoryAsOf(set: JudgedSet, now: Date): HistoryOutcome[] {
  const shift = now.getTime() - set.referenceTime.getTime();
  return readFileSync(`${TASK_SET_DIR}/history.jsonl`, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as HistoryOutcome)
    .map((o) => ({ ...o, at: new Date(new Date(o.at).getTime() + shift).toISOString() }));
}

/** The judged sets: tuned on (eval/relevance, eval/tuning2) and held out (eval/heldout, eval/heldout2: never tuned on). */
export const JUDGED_SETS = [
  { name: 'tuning set (eval/relevance)', load: () => loadJudgedSet(JUDGED_SET_DIR), key: 'tuning', sealed: false, tuning: true, tasks: false },
  { name: 'second tuning set (eval/tuning2)', load: () => loadJudgedSet(TUNING2_SET_DIR), key: 'tuning2', sealed: false, tuning: true, tasks: false },
  { name: 'held-out set (eval/heldout, never tuned on)', load: () => loadJudgedSet(HELDOUT_SET_DIR), key: 'heldout', sealed: false, tuning: false, tasks: false },
  { name: 'second held-out set (eval/heldout2, sealed)', load: () => loadJudgedSet(SEALED_HELDOUT_SET_DIR), key: 'heldout2', sealed: true, tuning: false, tasks: false },
  // The task set (issue 45): its tuning half, and its held-out half sealed like eval/heldout2.
  { name: 'task set, tuning half (eval/tasks/tuning.json)', load: () => loadTaskSet('tuning'), key: 'tasks', sealed: false, tuning: true, tasks: true },
  { name: 'task set, held-out half (eval/tasks/heldout.json, sealed)', load: () => loadTaskSet('heldout'), key: 'tasks-heldout', sealed: true, tuning: false, tasks: true },
] as const;

export type ListingType = NonNullable<JudgedQuery['type']>;
const typeOf = (resource: string): ListingType => (resource.startsWith('mcp://') ? 'mcp' : 'http');

/**
 * The set's queries filtered by type: its own typed ones as judged, and each untyped one once per
 * type that has a relevant listing for it, its judgments restricted to that type.
 */
export function typeFilteredQueries(set: JudgedSet): JudgedQuery[] {
  const out: JudgedQuery[] = [];
  for (const query of set.queries) {
    if (query.needs) continue;
    const types: ListingType[] = query.type ? [query.type] : ['mcp', 'http'];
    for (const type of types) {
      const judgments = Object.fromEntries(Object.entries(query.judgments).filter(([resource]) => typeOf(resource) === type));
      if (!Object.values(judgments).some((grade) => grade >= RELEVANT_GRADE)) continue;
      out.push({ ...query, id: query.type ? query.id : `${query.id}~${type}`, type, judgments });
    }
  }
  return out;
}
