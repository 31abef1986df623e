/**
 * Relevance benchmark (eval/relevance/README.md): how well ranked search puts the listings people
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
 * The scratch index and Redis prefix are deleted at the end.
 */
import type { ParsedEntry } from '../src/catalog/transfer.js';
import { importListings } from '../src/catalog/transfer.js';
import type { Listing } from '../src/catalog/listing.js';
import { setRanking } from '../src/search/rankingCommand.js';
import { startServiceInProcess, type InProcessService } from './lib/benchService.js';
import { parseCommandLine, runMain } from './lib/cliOptions.js';
import { entriesAsOf, loadJudgedSet, type JudgedQuery, type JudgedSet } from './lib/judgedSet.js';
import { perQuery, summarize, RELEVANT_GRADE, type QueryOutcome, type RunSummary } from './lib/relevanceMetrics.js';

const USAGE = 'usage: bench-relevance [--verbose]';
/** Whole-catalog neutral values: every amount is within the offset, every settlement within 100 years. */
const NEUTRAL_BOOSTS: Array<[string, string]> = [
  ['price.offset', String(Number.MAX_SAFE_INTEGER)],
  ['recency.offset', '36500d'],
  ['recency.neverSettled', '1'],
];

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
  for (const [key, value] of NEUTRAL_BOOSTS) await setRanking(service.elasticsearch, service.config.listingsAlias, key, value);
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

function printSummary(set: JudgedSet, listings: number, bm25: RunSummary, full: RunSummary): void {
  const rows: Array<[string, string, string]> = [
    ['nDCG@10', fixed(bm25.ndcg10), fixed(full.ndcg10)],
    ['MRR@10 (first grade >= 2)', fixed(bm25.mrr10), fixed(full.mrr10)],
    ['precision@3 (grade >= 2)', fixed(bm25.precision3), fixed(full.precision3)],
    ['first result graded 0', pct(bm25.grade0First, bm25.queries), pct(full.grade0First, full.queries)],
    ['no result at all', String(bm25.noResults), String(full.noResults)],
    ['spam listing first', String(bm25.spamFirst), String(full.spamFirst)],
  ];
  process.stdout.write(
    `\nrelevance set: ${listings} listings, ${set.queries.length} queries, ${set.spam.size} spam listings (eval/relevance); ` +
      `relevant = grade >= ${RELEVANT_GRADE}, unjudged = grade 0\n\n` +
      `| measure | BM25 alone | full ranking |\n|---|---|---|\n` +
      rows.map((r) => `| ${r.join(' | ')} |`).join('\n') +
      '\n',
  );
}

function printCategories(bm25: Ranked[], full: Ranked[]): void {
  const byCategory = new Map<string, { bm25: number[]; full: number[] }>();
  bm25.forEach((run, i) => {
    for (const category of run.query.categories) {
      const entry = byCategory.get(category) ?? { bm25: [], full: [] };
      entry.bm25.push(perQuery(run.outcome).ndcg10);
      entry.full.push(perQuery(full[i]!.outcome).ndcg10);
      byCategory.set(category, entry);
    }
  });
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  process.stdout.write('\nnDCG@10 by category (a query can be in several)\n\n| category | queries | BM25 alone | full ranking |\n|---|---|---|---|\n');
  for (const [category, v] of [...byCategory].sort(([a], [b]) => a.localeCompare(b))) {
    process.stdout.write(`| ${category} | ${v.bm25.length} | ${fixed(mean(v.bm25))} | ${fixed(mean(v.full))} |\n`);
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
  process.stdout.write('\nper query: nDCG@10 / RR@10 / P@3 for BM25 alone -> full ranking; top 5 of the full ranking (grade, price in USDC, last settled)\n');
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

async function main(): Promise<void> {
  const { values } = parseCommandLine({ options: { verbose: { type: 'boolean', default: false } } }, USAGE);
  const set = loadJudgedSet();
  const stamp = Date.now().toString(36);
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
  const progress = (what: string) => process.stderr.write(`${((Date.now() - started) / 1000).toFixed(1)} s: ${what}\n`);
  try {
    const imported = await importListings(service.container.catalog.writer, entriesAsOf(set, new Date()), { source: 'import' });
    if (imported.rejected.length > 0) {
      throw new Error(`the import refused ${imported.rejected.length} listings: ${JSON.stringify(imported.rejected.slice(0, 3))}`);
    }
    const resourceById = new Map(imported.accepted.map((a) => [a.id, resourceOf(set.entries[a.index])]));
    await waitUntilSearchable(service);
    progress(`${imported.accepted.length} listings imported and searchable in ${service.config.listingsAlias}`);
    const full = await rankAll(service, set, resourceById);
    progress(`${set.queries.length} queries ranked by the full ranking`);
    await neutralizeBoosts(service, set);
    progress('price and recency factors set to 1 (checked with explain=1)');
    const bm25 = await rankAll(service, set, resourceById);
    progress(`${set.queries.length} queries ranked by BM25 alone`);
    printSummary(set, imported.accepted.length, summarize(bm25.map((r) => r.outcome)), summarize(full.map((r) => r.outcome)));
    printCategories(bm25, full);
    printFirstResultFailures('BM25 alone', bm25, set);
    printFirstResultFailures('full ranking', full, set);
    if (values.verbose) printVerbose(bm25, full, set);
  } finally {
    await service.close();
  }
}

runMain('bench-relevance', main);
