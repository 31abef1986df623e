/**
 * What semantic retrieval costs, per embedding model (README "Semantic retrieval", the model
 * table): the CPU of one query embedding (one query at a time, straight to the model: no query
 * cache), the CPU per listing embedding (the listing texts of both judged sets, in batches of
 * EMBEDDING_BATCH_SIZE as the embedding worker sends them), the model's load time and the
 * process's resident memory. CPU is process.cpuUsage around the model call (user + system, every
 * thread), on one thread as the service runs the model.
 *
 *   npm run bench -- embedding [-- --queries N --passes N]          the configured model (EMBEDDING_MODEL)
 *   npm run bench -- embedding --models all|NAME,NAME [...]      each in a fresh process, as a table
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HELDOUT_SET_DIR, loadJudgedSet } from '../lib/judgedSet.js';
import { percentile } from '../lib/latency.js';
import { loadConfigOrFail, numberOption, parseCommandLine, runMain, fail } from '../../src/door.js';
import { createLogger } from '../../src/door.js';
import { EMBEDDING_MODEL_NAMES } from '../../src/door.js';
import { listingText } from '../../src/door.js';
import { OnnxEmbedder } from '../../src/door.js';
import type { EmbeddedFields } from '../../src/door.js';

const USAGE = 'usage: bench-embedding [--queries N] [--passes N] [--models all|NAME,NAME] [--json]';

interface ModelCost {
  model: string;
  loadMs: number;
  /** Resident memory before the model was loaded, after it, and the process's peak (MB). */
  rssBeforeMb: number;
  rssLoadedMb: number;
  maxRssMb: number;
  queryCpuMsP50: number;
  queryCpuMsP95: number;
  queryCpuMsMean: number;
  listingCpuMs: number;
  listings: number;
  batch: number;
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function measure(queryCount: number, passes: number): Promise<ModelCost> {
  const config = loadConfigOrFail();
  const embedder = new OnnxEmbedder(config.embeddingModel, config.embeddingModelDir, createLogger('warn'));
  const sets = [loadJudgedSet(), loadJudgedSet(HELDOUT_SET_DIR)];
  const queries = sets.flatMap((set) => set.queries.map((query) => query.q));
  const listings = sets.flatMap((set) => set.entries.flatMap((entry) => ('value' in entry ? [listingText(entry.value as EmbeddedFields)] : [])));

  const rssBefore = process.memoryUsage().rss;
  const loadStarted = performance.now();
  if (!(await embedder.embed([], 'query'))) fail(`no embedding model ${config.embeddingModel} in ${config.embeddingModelDir}: run EMBEDDING_MODEL=${config.embeddingModel} npm run services -- model`, 1);
  const loadMs = performance.now() - loadStarted;
  const rssLoaded = process.memoryUsage().rss;
  await embedder.embed(queries.slice(0, 8), 'query'); // warm up the session's first runs

  const queryCpu: number[] = [];
  for (let i = 0; i < queryCount; i++) {
    const started = process.cpuUsage();
    await embedder.embed([queries[i % queries.length]!], 'query');
    queryCpu.push(cpuMs(started));
  }
  const batch = config.embedding.batchSize;
  const listingStarted = process.cpuUsage();
  for (let pass = 0; pass < passes; pass++) {
    for (let i = 0; i < listings.length; i += batch) await embedder.embed(listings.slice(i, i + batch), 'passage');
  }
  const listingCpuMs = cpuMs(listingStarted) / (listings.length * passes);
  const sorted = [...queryCpu].sort((a, b) => a - b);
  return {
    model: config.embeddingModel,
    loadMs: Math.round(loadMs),
    rssBeforeMb: mb(rssBefore),
    rssLoadedMb: mb(rssLoaded),
    maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    queryCpuMsP50: percentile(sorted, 50),
    queryCpuMsP95: percentile(sorted, 95),
    queryCpuMsMean: sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length,
    listingCpuMs,
    listings: listings.length,
    batch,
  };
}

const row = (c: ModelCost) =>
  `| ${c.model} | ${c.queryCpuMsP50.toFixed(1)} / ${c.queryCpuMsP95.toFixed(1)} | ${c.listingCpuMs.toFixed(1)} | ${c.loadMs} | ${c.rssLoadedMb - c.rssBeforeMb} (${c.maxRssMb}) |`;

/** Each model in a process of its own: the memory figures are that model's alone. */
function compare(models: string[], args: string[]): void {
  const script = fileURLToPath(import.meta.url);
  process.stdout.write('| model | CPU ms per query p50 / p95 | CPU ms per listing | load ms | RSS MB added by the model (process peak) |\n|---|---|---|---|---|\n');
  for (const model of models) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', script, ...args, '--json'], { env: { ...process.env, EMBEDDING_MODEL: model }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) fail(`${model}: bench-embedding exited with ${child.status}`, 1);
    process.stdout.write(`${row(JSON.parse(child.stdout) as ModelCost)}\n`);
  }
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    { options: { queries: { type: 'string' }, passes: { type: 'string' }, models: { type: 'string' }, json: { type: 'boolean', default: false } } },
    USAGE,
  );
  const queryCount = numberOption('queries', values.queries ?? '300', { min: 1, max: 100_000, integer: true });
  const passes = numberOption('passes', values.passes ?? '1', { min: 1, max: 100, integer: true });
  if (values.models !== undefined) {
    const models = values.models === 'all' ? EMBEDDING_MODEL_NAMES : values.models.split(',').map((name) => name.trim());
    const unknown = models.filter((name) => !EMBEDDING_MODEL_NAMES.includes(name));
    if (unknown.length > 0) fail(`unknown model ${unknown.join(', ')} (known: ${EMBEDDING_MODEL_NAMES.join(', ')})`);
    return compare(models, ['--queries', String(queryCount), '--passes', String(passes)]);
  }
  const cost = await measure(queryCount, passes);
  if (values.json) return void process.stdout.write(JSON.stringify(cost));
  process.stdout.write(
    `${cost.model}: load ${cost.loadMs} ms, RSS ${cost.rssBeforeMb} -> ${cost.rssLoadedMb} MB (peak ${cost.maxRssMb} MB)\n` +
      `query embedding (${queryCount}, one at a time): CPU p50 ${cost.queryCpuMsP50.toFixed(1)} ms, p95 ${cost.queryCpuMsP95.toFixed(1)} ms, mean ${cost.queryCpuMsMean.toFixed(1)} ms\n` +
      `listing embedding (${cost.listings} judged listings x ${passes}, batches of ${cost.batch}): CPU ${cost.listingCpuMs.toFixed(1)} ms per listing\n`,
  );
}

runMain('bench-embedding', main);
