/**
 * Relevance benchmark (eval/relevance/README.md, eval/heldout/README.md): how well ranked search puts the listings people
 * want first, on the hand-judged set, for BM25 alone and for the full ranking, side by side.
 *
 *   npm run bench:relevance [-- --verbose]
 *
 * Loads eval/relevance/listings.jsonl through the import path (importListings, as `npm run import`)
 * into a scratch index behind an in-process service, waits until it is searchable, and sends every
 * query of eval/relevance/queries.json to GET /discovery/search (limit 10, with the query's `type`).
 * "BM25 alone" is the same service, index and text query with the price and recency factors made
 * exactly 1 through the operator's tunables (price.offset and recency.offset beyond every listing,
 * recency.neverSettled 1, written as `npm run ranking -- set` does), checked with explain=1.
 * "Without semantic" is the full ranking with `semantic.weight` 0 (no kNN clause), on the same
 * index; "BM25 alone" has it at 0 too. `--semantic-weight` overrides the shipped weight for the
 * full ranking (to tune it). The scratch index and Redis prefix are deleted at the end.
 */
import type { ParsedEntry } from '../src/catalog/transfer.js';
import { importListings } from '../src/catalog/transfer.js';
import type { Listing } from '../src/shapes/listing.js';
import { setRanking } from '../src/search/rankingCommand.js';
import { sharedEmbedder } from '../src/semantic/textEmbedder.js';
import { createLogger } from '../src/logger.js';
import { startServiceInProcess, type InProcessService } from './lib/benchService.js';
import { fail, parseCommandLine, runMain } from './lib/cliOptions.js';
import { entriesAsOf, HELDOUT_SET_DIR, JUDGED_SET_DIR, loadJudgedSet, type JudgedQuery, type JudgedSet } from './lib/judgedSet.js';
import { perQuery, summarize, RELEVANT_GRADE, type QueryOutcome, type RunSummary } from './lib/relevanceMetrics.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';

const USAGE = 'usage: bench-relevance [--set tuning|heldout|both] [--verbose] [--semantic-weight W]';
/** Whole-catalog neutral values: every amount is within the offset, every settlement within 100 years. */
const NEUTRAL_BOOSTS: Array<[string, string]> = [
  ['price.offset', String(Number.MAX_SAFE_INTEGER)],
  ['recency.offset', '36500d'],
  ['recency.neverSettled', '1'],
];

/**
 * Waits until the service's embedding worker has embedded every listing of the scratch index
 * (embeddings are computed after the write, src/semantic/embeddingWorker.ts), so the semantic
 * columns measure the whole set; resolves with how many are embedded (0: model not installed).
 */
async function waitUntilEmbedded(service: InProcessService, progress: (what: string) => void): Promise<number> {
  const { elasticsearch, config } = service;
  // The same model instance as the service's (one per directory and process).
  if (!(await sharedEmbedder(config.embeddingModelDir, createLogger('warn')).embed(['warm up']))) return 0;
  const count = async (query?: object) => (await elasticsearch.count({ index: config.listingsAlias, ...(query ? { query } : {}) })).count;
  const total = await count();
  const started = Date.now();
  for (;;) {
    await elasticsearch.indices.refresh({ index: config.listingsAlias });
    const embedded = await count({ exists: { field: 'embeddedTextHash' } });
    if (embedded >= total) {
      progress(`${embedded} listings embedded by the embedding worker in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return embedded;
    }
    if (Date.now() - started > 600_000) throw new Error(`only ${embedded} of ${total} listings embedded within 600 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface Ranked {
  query: JudgedQuery;
  results: Listing[];
  outcome: QueryOutcome;
}

function resourceOf(entry: ParsedEntry | undefined): string {
  return (entry && 'value' in entry ? (entry.value as { resource: string }).resource : undefined) ?? '?';
}

async function search(service: InProcessService, query: JudgedQuery, explain = false): Promise<Listing[]> {
  const params = new URLSearchParams({ q: query.q, limit: '10' });
  if (query.type) params.set('type', query.type);
  if (explain) params.set('explain', '1');
  const response = await fetch(`${service.url}/discovery/search?${params}`);
  if (response.status !== 200) throw new Error(`${query.id} ${JSON.stringify(query.q)}: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { results: Listing[] }).results;
}

async function rankAll(service: InProcessService, set: JudgedSet, resourceById: Map<string, string>): Promise<Ranked[]> {
  const ranked: Ranked[] = [];
  for (const query of set.queries) {
    const results = await search(service, query);
    const resources = results.map((listing) => resourceById.get(listing.id) ?? listing.resource);
    ranked.push({
      query,
      results,
      outcome: {
        rankedGrades: resources.map((resource) => query.judgments[resource] ?? 0),
        judgedGrades: Object.values(query.judgments),
        spamFirst: resources.length > 0 && set.spam.has(resources[0]!),
      },
    });
  }
  return ranked;
}

async function waitUntilSearchable(service: InProcessService): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await service.container.catalog.queue.stats()).depth > 0) {
    if (Date.now() > deadline) throw new Error('the write queue was not applied within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await service.elasticsearch.indices.refresh({ index: service.config.listingsAlias });
}

/** Price and recency factors exactly 1 on the scratch index; refuses to go on unless explain=1 shows it. */
async function neutralizeBoosts(service: InProcessService, set: JudgedSet): Promise<void> {
  for (const [key, value] of NEUTRAL_BOOSTS) await setRanking(new RankingTunablesIndex(service.elasticsearch, service.config.listingsAlias), key, value);
  await service.container.search.ranking.refresh();
  for (const query of set.queries) {
    for (const listing of await search(service, query, true)) {
      const debug = listing.debug!;
      if (debug.priceBoost !== 1 || debug.recencyBoost !== 1) {
        throw new Error(`BM25 pass: ${query.id} ${listing.resource} still has priceBoost ${debug.priceBoost}, recencyBoost ${debug.recencyBoost}`);
      }
    }
  }
}

const fixed = (n: number) => n.toFixed(3);
const pct = (n: number, of: number) => `${n} (${((100 * n) / of).toFixed(1)}%)`;

interface Column {
  label: string;
  runs: Ranked[];
}

function printSummary(set: JudgedSet, setName: string, listings: number, columns: Column[]): void {
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

function printCategories(columns: Column[]): void {
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

function printFirstResultFailures(label: string, runs: Ranked[], set: JudgedSet): void {
  const failures = runs.filter((r) => r.outcome.rankedGrades[0] === 0);
  if (failures.length === 0) return;
  process.stdout.write(`\n${label}: first result graded 0\n`);
  for (const run of failures) {
    const first = run.results[0]!;
    const spam = set.spam.has(first.resource) ? ' [SPAM]' : '';
    process.stdout.write(`  ${run.query.id} ${JSON.stringify(run.query.q)}${run.query.type ? ` type=${run.query.type}` : ''} -> ${first.resource}${spam}\n`);
  }
}

function printVerbose(bm25: Ranked[], full: Ranked[], set: JudgedSet): void {
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

/** The two judged sets: tuned on (eval/relevance) and held out (eval/heldout, never tuned on). */
const SETS = [
  { name: 'tuning set (eval/relevance)', dir: JUDGED_SET_DIR, key: 'tuning' },
  { name: 'held-out set (eval/heldout, never tuned on)', dir: HELDOUT_SET_DIR, key: 'heldout' },
] as const;

interface SetRun {
  name: string;
  set: JudgedSet;
  listings: number;
  columns: Column[];
}

/** One judged set on a scratch deployment of its own: full ranking, without semantic, BM25 alone. */
async function runSet(name: string, set: JudgedSet, semanticWeightOption: string | undefined): Promise<SetRun> {
  const stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  // Always names of its own, whatever the environment says: the run rewrites the index's ranking
  // tunables and deletes the index and Redis keys at the end.
  const env = {
    ...process.env,
    LISTINGS_ALIAS: `bench-relevance-${stamp}`,
    LISTINGS_INDEX: `bench-relevance-${stamp}-v1`,
    REDIS_PREFIX: `bench-relevance:${stamp}:`,
  };
  const service = await startServiceInProcess({ ...env, LOG_LEVEL: 'warn', CURSOR_SECRET: `bench-relevance-secret-${stamp}` });
  const started = Date.now();
  const progress = (what: string) => process.stderr.write(`${name}, ${((Date.now() - started) / 1000).toFixed(1)} s: ${what}\n`);
  try {
    const imported = await importListings(service.container.catalog.writer, entriesAsOf(set, new Date()), { source: 'import' });
    if (imported.rejected.length > 0) {
      throw new Error(`the import refused ${imported.rejected.length} listings: ${JSON.stringify(imported.rejected.slice(0, 3))}`);
    }
    const resourceById = new Map(imported.accepted.map((a) => [a.id, resourceOf(set.entries[a.index])]));
    await waitUntilSearchable(service);
    progress(`${imported.accepted.length} listings imported and searchable in ${service.config.listingsAlias}`);
    const embedded = await waitUntilEmbedded(service, progress);
    if (embedded === 0) progress('WARNING: no listing has an embedding (model not installed: npm run services -- model); semantic columns equal the others');
    const alias = service.config.listingsAlias;
    const semanticWeight = semanticWeightOption ?? String((await service.container.search.ranking.current()).semantic.weight);
    await setRanking(new RankingTunablesIndex(service.elasticsearch, alias), 'semantic.weight', semanticWeight);
    await service.container.search.ranking.refresh();
    const full = await rankAll(service, set, resourceById);
    progress(`${set.queries.length} queries ranked by the full ranking (semantic.weight ${semanticWeight}, ${embedded} listings embedded)`);
    await setRanking(new RankingTunablesIndex(service.elasticsearch, alias), 'semantic.weight', '0');
    await service.container.search.ranking.refresh();
    const lexical = await rankAll(service, set, resourceById);
    progress(`${set.queries.length} queries ranked by the full ranking without semantic retrieval`);
    await neutralizeBoosts(service, set);
    progress('price and recency factors set to 1 (checked with explain=1)');
    const bm25 = await rankAll(service, set, resourceById);
    progress(`${set.queries.length} queries ranked by BM25 alone`);
    return {
      name,
      set,
      listings: imported.accepted.length,
      columns: [
        { label: 'BM25 alone', runs: bm25 },
        { label: 'full, semantic off', runs: lexical },
        { label: `full ranking (semantic ${semanticWeight})`, runs: full },
      ],
    };
  } finally {
    await service.close();
  }
}

/** The headline: the full ranking on both sets side by side, and the gap between them. */
function printSideBySide(runs: SetRun[]): void {
  const full = runs.map((run) => summarize(run.columns[2]!.runs.map((r) => r.outcome)));
  const lexical = runs.map((run) => summarize(run.columns[1]!.runs.map((r) => r.outcome)));
  const row = (measure: string, values: string[]) => `| ${measure} | ${values.join(' | ')} |`;
  const lines = [
    '',
    'side by side: the full ranking on the set it was tuned on and on the held-out set',
    '',
    `| measure | ${runs.map((r) => r.name).join(' | ')} |`,
    `|---|${runs.map(() => '---|').join('')}`,
    row('nDCG@10, full ranking', full.map((s) => fixed(s.ndcg10))),
    row('nDCG@10, full, semantic off', lexical.map((s) => fixed(s.ndcg10))),
    row('MRR@10', full.map((s) => fixed(s.mrr10))),
    row('precision@3', full.map((s) => fixed(s.precision3))),
    row('first result graded 0', full.map((s) => pct(s.grade0First, s.queries))),
    row('spam listing first', full.map((s) => String(s.spamFirst))),
  ];
  if (full.length === 2) lines.push('', `held-out nDCG@10 minus tuning nDCG@10: ${(full[1]!.ndcg10 - full[0]!.ndcg10).toFixed(3)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        verbose: { type: 'boolean', default: false },
        'semantic-weight': { type: 'string' },
        set: { type: 'string', default: 'both' },
      },
    },
    USAGE,
  );
  const chosen = SETS.filter((s) => values.set === 'both' || values.set === s.key);
  if (chosen.length === 0) fail(`--set must be tuning, heldout or both\n${USAGE}`);
  const runs: SetRun[] = [];
  for (const { name, dir } of chosen) runs.push(await runSet(name, loadJudgedSet(dir), values['semantic-weight']));
  for (const run of runs) {
    printSummary(run.set, run.name, run.listings, run.columns);
    printCategories(run.columns);
    printFirstResultFailures(`${run.name}, BM25 alone`, run.columns[0]!.runs, run.set);
    printFirstResultFailures(`${run.name}, full ranking, semantic off`, run.columns[1]!.runs, run.set);
    printFirstResultFailures(`${run.name}, full ranking`, run.columns[2]!.runs, run.set);
    if (values.verbose) printVerbose(run.columns[1]!.runs, run.columns[2]!.runs, run.set);
  }
  printSideBySide(runs);
}

runMain('bench-relevance', main);
