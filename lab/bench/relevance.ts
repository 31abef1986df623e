/**
 * Relevance benchmark (lab/eval/relevance/README.md, lab/eval/heldout/README.md, lab/eval/heldout2/README.md): how well ranked search puts the listings people
 * want first, on the hand-judged set, for BM25 alone and for the full ranking, side by side.
 *
 *   npm run bench -- relevance [-- --verbose]
 *
 * Loads lab/eval/relevance/listings.jsonl through the import path (importListings, as `npm run import`)
 * into a scratch index behind an in-process service, waits until it is searchable, and sends every
 * query of lab/eval/relevance/queries.json to GET /discovery/search (limit 10, with the query's `type`).
 * "BM25 alone" is the same service, index and text query with the price and recency factors made
 * exactly 1 through the operator's tunables (price.offset and recency.offset beyond every listing,
 * recency.neverSettled 1, written as `npm run ranking -- set` does), checked with explain=1.
 * "Popularity off" is the full ranking with `popularity.weight` 0 (issue 24: the distinct-payer
 * factor is kept on only while it does not lower either set), on the same index.
 * "Without semantic" is the full ranking with `semantic.weight` 0 (no kNN clause), on the same
 * index; "BM25 alone" has it at 0 too. `--semantic-weight` and `--min-similarity` override the
 * shipped semantic.weight and semantic.minSimilarity for the full ranking (chosen per embedding
 * model on the tuning set with lab/tune/semantic.ts; EMBEDDING_MODEL picks the model);
 * `--fusion` and `--rank-constant` semantic.fusion and semantic.rankConstant (search/semanticFusion.ts).
 * `--tunable KEY=VALUE` (repeatable) sets any other tunable for the full ranking and the columns after it.
 * `--variants weighted:40,normalised:40,rrf:40:20` also ranks both sets with each fusion:weight[:rankConstant]
 * on the same index and prints them in one table (tuning, held-out, grade-0 and spam first). The
 * scratch index and Redis prefix are deleted at the end (lab/lib/judgedDeployment.ts).
 * `--set` picks the sets, a comma-separated list of tuning (eval/relevance), tuning2 (eval/tuning2),
 * heldout and heldout2, or tuned (both tuning sets), both (the tuning sets and heldout, the default)
 * or all. Each held-out set's gap is measured against the tuning sets pooled (every query once).
 * The second held-out set is sealed: only its aggregates are printed (no failing query, no
 * --verbose lines), so a result on it cannot be read query by query and tuned for.
 */
import { fail, parseCommandLine, runMain } from '../../src/door.js';
import { openJudgedDeployment, type JudgedDeployment, type Ranked } from '../lib/judgedDeployment.js';
import { JUDGED_SETS as SETS, taskHistoryAsOf, type JudgedSet } from '../lib/judgedSet.js';
import { printCategories, printFirstResultFailures, printSideBySide, printSummary, printTaskTable, printVariants, printVerbose, type Column, type SetRun } from '../lib/relevanceReport.js';

const USAGE =
  'usage: bench-relevance [--set tuning,tuning2,heldout,heldout2,tasks,tasks-heldout|tuned|both|all|every] [--verbose] [--semantic-weight W] [--min-similarity S] [--fusion F] [--rank-constant C] [--variants F:W[:C],...] [--tunable KEY=VALUE ...]';
/** Whole-catalog neutral values: every amount is within the offset, every settlement within 100 years. */
const NEUTRAL_BOOSTS: Array<[string, string]> = [
  ['price.offset', String(Number.MAX_SAFE_INTEGER)],
  ['recency.offset', '36500d'],
  ['recency.neverSettled', '1'],
  ['popularity.weight', '0'],
  // Plain BM25: the whole query as one text, no paid outcomes (issue 45's baseline).
  ['tasks.candidates', '0'],
  ['outcomes.weight', '0'],
];

/** Price and recency factors exactly 1 on the scratch index; refuses to go on unless explain=1 shows it. */
async function neutralizeBoosts(deployment: JudgedDeployment, set: JudgedSet): Promise<void> {
  for (const [key, value] of NEUTRAL_BOOSTS) await deployment.setTunable(key, value);
  for (const query of set.queries) {
    for (const listing of await deployment.search(query, true)) {
      const debug = listing.debug!;
      if (debug.priceBoost !== 1 || debug.recencyBoost !== 1 || debug.popularityBoost !== 1) {
        throw new Error(
          `BM25 pass: ${query.id} ${listing.resource} still has priceBoost ${debug.priceBoost}, recencyBoost ${debug.recencyBoost}, popularityBoost ${debug.popularityBoost}`,
        );
      }
    }
  }
}

const SET_GROUPS: Record<string, string[]> = {
  tuned: ['tuning', 'tuning2'],
  both: ['tuning', 'tuning2', 'heldout'],
  all: ['tuning', 'tuning2', 'heldout', 'heldout2'],
  every: SETS.map((s) => s.key),
};

/** The sets of `--set`, in SETS order; undefined when a name is unknown. */
function chosenSets(choice: string): Array<(typeof SETS)[number]> | undefined {
  const keys = new Set(choice.split(',').flatMap((name) => SET_GROUPS[name.trim()] ?? [name.trim()]));
  if ([...keys].some((key) => !SETS.some((s) => s.key === key))) return undefined;
  return SETS.filter((s) => keys.has(s.key));
}


/** A fusion variant of `--variants`: `fusion:weight[:rankConstant]`. */
interface FusionVariant {
  fusion: string;
  weight: string;
  rankConstant?: string;
}

function parseVariants(text: string | undefined): FusionVariant[] {
  if (text === undefined) return [];
  return text.split(',').map((item) => {
    const [fusion, weight, rankConstant, ...rest] = item.trim().split(':');
    if (!fusion || !weight || rest.length > 0) fail(`--variants: ${JSON.stringify(item)} is not fusion:weight[:rankConstant]\n${USAGE}`);
    return { fusion, weight, ...(rankConstant !== undefined ? { rankConstant } : {}) };
  });
}

const variantLabel = (v: FusionVariant) => `${v.fusion} ${v.weight}${v.rankConstant !== undefined ? ` (c ${v.rankConstant})` : ''}`;

interface SemanticOptions {
  /** semantic.fusion of the full ranking (default: the shipped one). */
  fusion?: string;
  /** semantic.rankConstant of the full ranking (default: the shipped one). */
  rankConstant?: string;
  /** semantic.weight of the full ranking (default: the shipped one). */
  weight?: string;
  /** semantic.minSimilarity of the full ranking (default: the shipped one). */
  minSimilarity?: string;
  /** Other tunables of the full ranking, as `npm run ranking -- set KEY VALUE` writes them (`--tunable KEY=VALUE`). */
  tunables?: [string, string][];
}

/** One judged set on a scratch deployment of its own: full ranking, without semantic, BM25 alone. */
async function runSet(name: string, set: JudgedSet, semantic: SemanticOptions, fusionVariants: FusionVariant[], tasks: boolean): Promise<Omit<SetRun, 'sealed' | 'tuning' | 'tasks'>> {
  const started = Date.now();
  const progress = (what: string) => process.stderr.write(`${name}, ${((Date.now() - started) / 1000).toFixed(1)} s: ${what}\n`);
  const deployment = await openJudgedDeployment(set, progress);
  try {
    const shipped = (await deployment.service.container.search.ranking.current()).semantic;
    const semanticWeight = semantic.weight ?? String(shipped.weight);
    const minSimilarity = semantic.minSimilarity ?? String(shipped.minSimilarity);
    const fusion = semantic.fusion ?? shipped.fusion;
    const rankConstant = semantic.rankConstant ?? String(shipped.rankConstant);
    await deployment.setTunable('semantic.minSimilarity', minSimilarity);
    for (const [key, value] of semantic.tunables ?? []) await deployment.setTunable(key, value);
    const variants: Column[] = [];
    for (const variant of fusionVariants) {
      await deployment.setTunable('semantic.fusion', variant.fusion);
      await deployment.setTunable('semantic.rankConstant', variant.rankConstant ?? String(shipped.rankConstant));
      await deployment.setTunable('semantic.weight', variant.weight);
      variants.push({ label: variantLabel(variant), runs: await deployment.rankAll() });
      progress(`${set.queries.length} queries ranked with ${variantLabel(variant)}`);
    }
    await deployment.setTunable('semantic.fusion', fusion);
    await deployment.setTunable('semantic.rankConstant', rankConstant);
    await deployment.setTunable('semantic.weight', semanticWeight);
    const full = await deployment.rankAll();
    const model = deployment.service.config.embeddingModel;
    progress(
      `${set.queries.length} queries ranked by the full ranking (${model}, semantic.fusion ${fusion}, weight ${semanticWeight}, minSimilarity ${minSimilarity}, ${deployment.embedded} listings embedded)`,
    );
    // The popularity factor (distinct payers) off, same index and run: kept on only if this is not better.
    const popularity = (await deployment.service.container.search.ranking.current()).popularity;
    await deployment.setTunable('popularity.weight', '0');
    const withoutPopularity = await deployment.rankAll();
    await deployment.setTunable('popularity.weight', String(popularity.weight));
    progress(`${set.queries.length} queries ranked by the full ranking with popularity.weight 0 (shipped ${popularity.weight})`);
    // Task sets (issue 45): the need split off, then the history split loaded (npm run import:outcomes).
    const taskColumns: Column[] = [];
    if (tasks) {
      const shippedTasks = (await deployment.service.container.search.ranking.current()).tasks;
      await deployment.setTunable('tasks.candidates', '0');
      taskColumns.push({ label: 'full, needs not split', runs: await deployment.rankAll() });
      await deployment.setTunable('tasks.candidates', String(shippedTasks.candidates));
      const imported = await deployment.importHistory(taskHistoryAsOf(set, new Date()));
      progress(`history loaded: ${imported.linked} of ${imported.total} outcomes linked (${imported.rejected.length} rejected, ${imported.skipped.length} skipped)`);
      const outcomes = (await deployment.service.container.search.ranking.current()).outcomes;
      taskColumns.push({ label: `full, with history (outcomes.weight ${outcomes.weight})`, runs: await deployment.rankAll() });
      await deployment.setTunable('tasks.candidates', '0');
      taskColumns.push({ label: 'full, with history, needs not split', runs: await deployment.rankAll() });
      await deployment.setTunable('tasks.candidates', String(shippedTasks.candidates));
      await deployment.setTunable('outcomes.weight', '0');
      progress(`${set.queries.length} queries ranked without the need split, with the history and with both`);
    }
    await deployment.setTunable('semantic.weight', '0');
    const lexical = await deployment.rankAll();
    progress(`${set.queries.length} queries ranked by the full ranking without semantic retrieval`);
    await neutralizeBoosts(deployment, set);
    progress('price and recency factors set to 1 (checked with explain=1)');
    const bm25 = await deployment.rankAll();
    progress(`${set.queries.length} queries ranked by BM25 alone`);
    return {
      name,
      set,
      listings: deployment.listings,
      columns: [
        { label: 'BM25 alone', runs: bm25 },
        { label: 'full, semantic off', runs: lexical },
        { label: `full ranking (${model}, ${fusion} ${semanticWeight}, min ${minSimilarity})`, runs: full },
        { label: 'full, popularity off', runs: withoutPopularity },
        ...taskColumns,
      ],
      variants,
    };
  } finally {
    await deployment.close();
  }
}

function parseTunable(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) fail(`--tunable takes KEY=VALUE (e.g. semantic.k=10), got ${text}\n${USAGE}`);
  return [text.slice(0, at), text.slice(at + 1)];
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        verbose: { type: 'boolean', default: false },
        'semantic-weight': { type: 'string' },
        'min-similarity': { type: 'string' },
        fusion: { type: 'string' },
        'rank-constant': { type: 'string' },
        variants: { type: 'string' },
        tunable: { type: 'string', multiple: true },
        set: { type: 'string', default: 'both' },
      },
    },
    USAGE,
  );
  const chosen = chosenSets(values.set);
  if (!chosen || chosen.length === 0) fail(`--set takes tuning, tuning2, heldout, heldout2, tasks, tasks-heldout (comma-separated), tuned, both, all or every\n${USAGE}`);
  const runs: SetRun[] = [];
  const semantic = {
    ...(values['semantic-weight'] !== undefined ? { weight: values['semantic-weight'] } : {}),
    ...(values['min-similarity'] !== undefined ? { minSimilarity: values['min-similarity'] } : {}),
    ...(values.fusion !== undefined ? { fusion: values.fusion } : {}),
    ...(values['rank-constant'] !== undefined ? { rankConstant: values['rank-constant'] } : {}),
    tunables: (values.tunable ?? []).map(parseTunable),
  };
  const fusionVariants = parseVariants(values.variants);
  for (const { name, load, sealed, tuning, tasks } of chosen) {
    runs.push({ ...(await runSet(name, load(), semantic, fusionVariants, tasks)), sealed, tuning, tasks });
  }
  for (const run of runs) {
    printSummary(run.set, run.name, run.listings, run.columns);
    printCategories(run.columns);
    if (run.sealed) continue;
    printFirstResultFailures(`${run.name}, BM25 alone`, run.columns[0]!.runs, run.set);
    printFirstResultFailures(`${run.name}, full ranking, semantic off`, run.columns[1]!.runs, run.set);
    printFirstResultFailures(`${run.name}, full ranking`, run.columns[2]!.runs, run.set);
    if (values.verbose) printVerbose(run.columns[1]!.runs, run.columns[2]!.runs, run.set);
  }
  printSideBySide(runs.filter((run) => !run.tasks));
  printTaskTable(runs.filter((run) => run.tasks));
  printVariants(runs);
}

runMain('bench-relevance', main);
