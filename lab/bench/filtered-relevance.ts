/**
 * Relevance of filtered ranked searches on a catalog of a realistic size (issue 46; docs/
 * catalog-reads.md, "Broad filters after the kNN search"). On a judged set alone (300 listings) the
 * kNN search's k neighbours are a tenth of the catalog, so where the read's filters go (inside the
 * kNN search, or after it with k widened: `semantic.preFilterMaxShare`) hardly matters. Here each
 * judged set is ranked among `--distractors` generated listings (the search benchmark's catalog,
 * judged 0 for every query), and each query is sent filtered by listing type, as /mcp/tools always
 * is and as a buyer's `type=` is: once with `type=mcp`, once with `type=http`, each judged on the
 * set's own grades of the listings of that type (a filter does not change what is relevant among
 * those it keeps; a query with no relevant listing of a type is not sent with it). The set's own
 * typed queries are sent as judged. Every `--shares` value is measured on the same index, then each
 * `--variant` (tunables as KEY=VALUE,KEY=VALUE: e.g. every filter inside with k widened as the
 * post-filter plan widens it, `semantic.preFilterMaxShare=1,semantic.k=58,semantic.numCandidates=58`),
 * every tunable a variant names set back to its shipped value after it. `--unfiltered` also sends
 * each query as written (no type, judged on every listing): the rows of type "any".
 *
 *   npx tsx lab/bench/filtered-relevance.ts [--set tuning,tuning2,heldout,heldout2] [--distractors 20000] [--shares 0.3,1] [--variant K=V,K=V ...] [--unfiltered]
 *
 * Reports per set and column: filtered queries, nDCG@10, MRR@10, and recall@10 of the relevant
 * (grade >= 2) listings, for type=mcp and type=http apart. The held-out sets are measured, never
 * chosen on; the second held-out set prints aggregates only, as in bench relevance.
 */
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { openJudgedDeployment } from '../lib/judgedDeployment.js';
import { JUDGED_SETS, typeFilteredQueries, type ListingType } from '../lib/judgedSet.js';
import { RELEVANT_GRADE, summarize, type QueryOutcome } from '../lib/relevanceMetrics.js';

const USAGE = 'usage: bench-filtered-relevance [--set tuning,tuning2,heldout,heldout2] [--distractors N] [--shares S,...] [--variant KEY=VALUE,KEY=VALUE ...] [--unfiltered]';

/** The judged sets of bench relevance without the task sets (their queries are needs, not typed searches). */
const SETS = JUDGED_SETS.filter((s) => !s.tasks);

interface Row {
  set: string;
  column: string;
  type: ListingType | 'any';
  queries: number;
  ndcg10: number;
  mrr10: number;
  recall10: number;
}

function recallAt10(outcome: QueryOutcome): number {
  const relevant = outcome.judgedGrades.filter((grade) => grade >= RELEVANT_GRADE).length;
  return relevant === 0 ? 0 : outcome.rankedGrades.slice(0, 10).filter((grade) => grade >= RELEVANT_GRADE).length / relevant;
}

type Variant = Array<[string, string]>;

function parseVariant(text: string): Variant {
  return text.split(',').map((item) => {
    const at = item.indexOf('=');
    if (at <= 0) fail(`--variant takes KEY=VALUE,KEY=VALUE (e.g. semantic.k=58), got ${JSON.stringify(item)}\n${USAGE}`);
    return [item.slice(0, at).trim(), item.slice(at + 1).trim()];
  });
}

/** A tunable's value in the ranking settings ('semantic.k' -> settings.semantic.k), as `npm run ranking -- set` takes it. */
function tunableValue(settings: unknown, key: string): string {
  const value = key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], settings);
  if (value === undefined || typeof value === 'object') fail(`--variant: ${key} is not a ranking tunable`);
  return String(value);
}

async function runSet(key: string, distractors: number, shares: string[], variants: Variant[], unfiltered: boolean): Promise<Row[]> {
  const { name, load } = SETS.find((s) => s.key === key)!;
  const judged = load();
  const asWritten = unfiltered ? judged.queries.filter((q) => !q.type && !q.needs) : [];
  const set = { ...judged, queries: [...typeFilteredQueries(judged), ...asWritten] };
  const started = Date.now();
  const progress = (what: string) => process.stderr.write(`${name}, ${((Date.now() - started) / 1000).toFixed(1)} s: ${what}\n`);
  const deployment = await openJudgedDeployment(set, progress, { distractors });
  const rows: Row[] = [];
  try {
    const shipped = await deployment.service.container.search.ranking.current();
    const measure = async (column: string) => {
      const ranked = await deployment.rankAll();
      progress(`${ranked.length} queries ranked with ${column}`);
      for (const type of ['mcp', 'http', ...(unfiltered ? ['any' as const] : [])] as const) {
        const outcomes = ranked.filter((r) => (r.query.type ?? 'any') === type).map((r) => r.outcome);
        const summary = summarize(outcomes);
        const recall = outcomes.reduce((sum, o) => sum + recallAt10(o), 0) / Math.max(1, outcomes.length);
        rows.push({ set: name, column, type, queries: summary.queries, ndcg10: summary.ndcg10, mrr10: summary.mrr10, recall10: recall });
      }
    };
    for (const share of shares) {
      await deployment.setTunable('semantic.preFilterMaxShare', share);
      await measure(`semantic.preFilterMaxShare ${share}`);
    }
    await deployment.setTunable('semantic.preFilterMaxShare', tunableValue(shipped, 'semantic.preFilterMaxShare'));
    for (const variant of variants) {
      const before = variant.map(([k]) => [k, tunableValue(shipped, k)] as const);
      for (const [k, v] of variant) await deployment.setTunable(k, v);
      await measure(variant.map(([k, v]) => `${k} ${v}`).join(', '));
      for (const [k, v] of before) await deployment.setTunable(k, v);
    }
  } finally {
    await deployment.close();
  }
  return rows;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    { options: { set: { type: 'string', default: 'tuning,tuning2,heldout,heldout2' }, distractors: { type: 'string', default: '20000' }, shares: { type: 'string', default: '0.3,1' }, variant: { type: 'string', multiple: true }, unfiltered: { type: 'boolean', default: false } } },
    USAGE,
  );
  const keys = values.set.split(',').map((s) => s.trim());
  if (keys.some((k) => !SETS.some((s) => s.key === k))) fail(`--set takes ${SETS.map((s) => s.key).join(', ')} (comma-separated)\n${USAGE}`);
  const distractors = numberOption('--distractors', values.distractors, { min: 0, max: 1_000_000 });
  const shares = values.shares.split(',').map((s) => s.trim());
  if (shares.some((s) => !(Number(s) >= 0.05 && Number(s) <= 1))) fail(`--shares takes values of semantic.preFilterMaxShare (0.05..1)\n${USAGE}`);
  const rows: Row[] = [];
  const variants = (values.variant ?? []).map(parseVariant);
  for (const key of keys) rows.push(...(await runSet(key, distractors, shares, variants, values.unfiltered)));
  const f = (n: number) => n.toFixed(3);
  process.stdout.write(`\nfiltered ranked searches among ${distractors} generated listings (judged 0); each column the shipped tunables but those it names\n\n`);
  process.stdout.write('| set | tunables | type | queries | nDCG@10 | MRR@10 | recall@10 of the relevant |\n|---|---|---|---:|---:|---:|---:|\n');
  for (const r of rows) process.stdout.write(`| ${r.set} | ${r.column} | ${r.type} | ${r.queries} | ${f(r.ndcg10)} | ${f(r.mrr10)} | ${f(r.recall10)} |\n`);
}

runMain('bench-filtered-relevance', main);
