/**
 * The one table of a search or ranking change (lab/bench/table.ts): what `bench-relevance` and
 * `bench-search` print, read back into numbers, and one row per code written from them. Pure
 * functions over the reports' text, so a commit whose scripts predate this module (the code a
 * change is compared against) is read the same way; a report that lacks a row fails loudly rather
 * than leaving a cell empty.
 */

/** The judged sets in the order bench-relevance prints them, by the directory its header names. */
export const JUDGED_SETS = [
  { key: 'tuning', header: '(eval/relevance)' },
  { key: 'tuning2', header: '(eval/tuning2)' },
  { key: 'heldout', header: '(eval/heldout,' },
  { key: 'heldout2', header: '(eval/heldout2,' },
] as const;
export type JudgedSetKey = (typeof JUDGED_SETS)[number]['key'];

export interface SetQuality {
  ndcg10: number;
  grade0First: number;
  spamFirst: number;
}

export type Relevance = Partial<Record<JudgedSetKey, SetQuality>>;

/** The cost figures of one bench-search run: CPU per request in ms, ratios as fractions. */
export interface Cost {
  /** Elasticsearch CPU per reference query, direct. */
  referenceMs: number;
  /** Elasticsearch CPU per ranked search, direct. */
  rankedMs: number;
  /** The same behind the gateway. */
  rankedBehindGatewayMs: number;
  /** The gateway process's CPU per ranked search. */
  gatewayMs: number;
  /** Ranked searches per second through the gateway over direct Elasticsearch's. */
  throughput: number;
  /** explain=1 p50 over plain p50, through the gateway. */
  explainRatio: number;
}

const cells = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim());
const number = (text: string | undefined, what: string): number => {
  const value = Number.parseFloat(text ?? '');
  if (!Number.isFinite(value)) throw new Error(`${what}: no number in ${JSON.stringify(text)}`);
  return value;
};

/** The full ranking's nDCG@10, grade-0 firsts and spam firsts per set, from bench-relevance's side-by-side table. */
export function parseRelevance(report: string): Relevance {
  const lines = report.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| measure |') && l.includes('(eval/'));
  if (header < 0) throw new Error('bench-relevance report: no side-by-side table');
  const names = cells(lines[header]!);
  const rowOf = (measure: string) => {
    const line = lines.slice(header).find((l) => l.startsWith(`| ${measure} |`));
    if (!line) throw new Error(`bench-relevance report: no "${measure}" row`);
    return cells(line);
  };
  const ndcg = rowOf('nDCG@10, full ranking');
  const grade0 = rowOf('first result graded 0');
  const spam = rowOf('spam listing first');
  const result: Relevance = {};
  for (const { key, header: marker } of JUDGED_SETS) {
    const column = names.findIndex((name) => name.includes(marker));
    if (column < 0) continue;
    result[key] = {
      ndcg10: number(ndcg[column], `nDCG@10 of ${key}`),
      grade0First: number(grade0[column], `grade 0 first of ${key}`),
      spamFirst: number(spam[column], `spam first of ${key}`),
    };
  }
  return result;
}

/** The ranked search's cost against the reference query, from bench-search's two tables of one run. */
export function parseCost(report: string): Cost {
  const lines = report.split('\n');
  const cpuHeader = lines.findIndex((l) => l.startsWith('| workload | ES, direct |'));
  const loadHeader = lines.findIndex((l) => l.startsWith('| workload | gateway p50 |'));
  if (cpuHeader < 0 || loadHeader < 0) throw new Error('bench-search report: no latency or CPU table');
  const rowAfter = (start: number, label: string) => {
    const line = lines.slice(start + 2).find((l, i, rest) => l.startsWith(`| ${label} |`) && rest.slice(0, i).every((p) => p.startsWith('|')));
    if (!line) throw new Error(`bench-search report: no "${label}" row`);
    return cells(line);
  };
  const reference = rowAfter(cpuHeader, 'reference query');
  const ranked = rowAfter(cpuHeader, 'search rank');
  const load = rowAfter(loadHeader, 'search rank');
  const explain = /^explain=1 p50 \/ plain p50 \(gateway\): ([\d.]+)x/m.exec(report)?.[1];
  return {
    referenceMs: number(reference[1], 'reference query ES CPU'),
    rankedMs: number(ranked[1], 'ranked search ES CPU'),
    rankedBehindGatewayMs: number(ranked[3], 'ranked search ES CPU behind the gateway'),
    gatewayMs: number(ranked[4], 'ranked search gateway CPU'),
    throughput: number(load[8], 'ranked search throughput ratio') / 100,
    explainRatio: number(explain, 'explain=1 p50 ratio'),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One code's row: every cost run listed (the spread is the noise), the median in bold. */
export function tableRow(label: string, relevance: Relevance, costs: Cost[]): string {
  const sets = JUDGED_SETS.filter((s) => relevance[s.key]);
  const quality = (pick: (q: SetQuality) => string) => sets.map((s) => pick(relevance[s.key]!)).join(' / ');
  const runs = (pick: (c: Cost) => number, format: (n: number) => string) =>
    costs.length === 0 ? '' : costs.length === 1 ? format(pick(costs[0]!)) : `**${format(median(costs.map(pick)))}** (${costs.map((c) => format(pick(c))).join(', ')})`;
  const ms = (n: number) => n.toFixed(2);
  const times = (n: number) => `${n.toFixed(2)}x`;
  const percent = (n: number) => `${(100 * n).toFixed(0)}%`;
  return `| ${[
    label,
    quality((q) => q.ndcg10.toFixed(3)),
    quality((q) => String(q.grade0First)),
    quality((q) => String(q.spamFirst)),
    runs((c) => c.rankedMs / c.referenceMs, times),
    runs((c) => c.rankedMs, ms),
    runs((c) => c.rankedBehindGatewayMs, ms),
    runs((c) => c.gatewayMs, ms),
    runs((c) => c.throughput, percent),
    runs((c) => c.explainRatio, times),
  ].join(' | ')} |`;
}

/** The header of `tableRow`'s rows, naming the sets in the order the row gives them. */
export function tableHeader(relevance: Relevance): string {
  const sets = JUDGED_SETS.filter((s) => relevance[s.key]).map((s) => s.key).join(' / ');
  return [
    `| code | nDCG@10 ${sets} | grade 0 first | spam first | ES CPU per ranked search, x reference | ES CPU ms, direct | ES CPU ms, behind the gateway | gateway CPU ms | gateway throughput / direct | explain=1 p50 / plain |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ].join('\n');
}
