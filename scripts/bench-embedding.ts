/**
 * What semantic retrieval costs in CPU (README "Semantic retrieval"): the time to embed one query
 * (each distinct, so the query cache never answers) and the listings per second the write path can
 * embed, on one thread as the service runs the model.
 *
 *   npm run bench:embedding [-- --queries N --listings N]
 */
import { loadJudgedSet } from './lib/judgedSet.js';
import { generateListings } from './lib/listingGenerator.js';
import { percentile } from './lib/latency.js';
import { numberOption, parseCommandLine, runMain, fail } from './lib/cliOptions.js';
import { buildListingDocument } from '../src/catalog/document.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { listingText } from '../src/semantic/listingText.js';
import { OnnxEmbedder } from '../src/semantic/textEmbedder.js';

const USAGE = 'usage: bench-embedding [--queries N] [--listings N]';
/** The ingest consumer's batch size (CATALOG_BATCH_SIZE default is 1000; the model runs them 16 at a time). */
const BATCH = 200;

async function main(): Promise<void> {
  const { values } = parseCommandLine({ options: { queries: { type: 'string' }, listings: { type: 'string' } } }, USAGE);
  const queryCount = numberOption('queries', values.queries ?? '300', { min: 1, max: 100_000, integer: true });
  const listingCount = numberOption('listings', values.listings ?? '1000', { min: 1, max: 100_000, integer: true });
  const config = loadConfig();
  const embedder = new OnnxEmbedder(config.embeddingModelDir, createLogger('warn'));
  if (!(await embedder.embed(['warm up']))) fail(`no embedding model in ${config.embeddingModelDir}: run npm run services -- model`, 1);

  const texts = loadJudgedSet().queries.map((query) => query.q);
  const latencies: number[] = [];
  for (let i = 0; i < queryCount; i++) {
    const started = performance.now();
    await embedder.embed([`${texts[i % texts.length]} ${i}`]);
    latencies.push(performance.now() - started);
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const ms = (p: number) => percentile(sorted, p).toFixed(1);
  process.stdout.write(`query embedding (${queryCount} distinct queries): p50 ${ms(50)} ms, p95 ${ms(95)} ms, p99 ${ms(99)} ms\n`);

  const now = new Date();
  const docs = generateListings(listingCount, 7, { now }).map((input) => listingText(buildListingDocument(input, { source: 'import' }, now)));
  const started = performance.now();
  for (let i = 0; i < docs.length; i += BATCH) await embedder.embed(docs.slice(i, i + BATCH));
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`listing embedding (${listingCount} generated listings, batches of ${BATCH}): ${(listingCount / seconds).toFixed(0)} listings/s on one thread\n`);
}

runMain('bench-embedding', main);
