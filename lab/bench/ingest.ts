/**
 * Ingest benchmark: loads generated listings through the bulk write path (validation, Redis stream,
 * ingest consumer, Elasticsearch `_bulk`) and measures until every one is searchable (count on the
 * alias). Target: >= 5,000 listings/s end to end. Then, unless --skip-embedding, runs the embedding
 * worker (src/semantic/embeddingWorker.ts) until every listing has an embedding and reports how
 * fast embeddings catch up (listings/s): listings are searchable by text long before that.
 *   npx tsx lab/bench/ingest.ts [--count 100000] [--seed 1] [--keep] [--skip-embedding]
 * Index names via LISTINGS_ALIAS / LISTINGS_INDEX / REDIS_PREFIX (defaults: bench-listings,
 * bench-listings-v1, bench:). The index is recreated at the start and deleted at the end unless
 * --keep (the search benchmark reuses it).
 */
import { dropCatalogKeys } from '../../src/door.js';
import { generateListings } from '../lib/listingGenerator.js';
import { benchmarkEnv, openCatalogSession } from '../../src/door.js';
import { fail, numberOption, parseCommandLine } from '../../src/door.js';
import { buildEmbeddingWorker } from '../../src/door.js';
import { sharedEmbedder } from '../../src/door.js';
import type { CatalogSession } from '../../src/door.js';
import { storesFor } from '../../src/door.js';

const { values } = parseCommandLine(
  {
    options: {
      count: { type: 'string', default: '100000' },
      seed: { type: 'string', default: '1' },
      chunk: { type: 'string', default: '5000' },
      keep: { type: 'boolean', default: false },
      'skip-embedding': { type: 'boolean', default: false },
    },
  },
  'usage: bench-ingest [--count N] [--seed N] [--chunk N] [--keep] [--skip-embedding]',
);
const count = numberOption('count', values.count, { max: 1_000_000 });
const chunk = numberOption('chunk', values.chunk);
const env = benchmarkEnv({ alias: 'bench-listings', index: 'bench-listings-v1', redisPrefix: 'bench:' });

function bar(done: number, total: number, label: string): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}   `);
}

/** Runs an embedding worker until all `count` listings are embedded; undefined without the model. */
async function embeddingCatchUp(session: CatalogSession): Promise<{ ms: number; perSecond: number } | undefined> {
  const { config, logger, elasticsearch, redis } = session;
  const embedder = sharedEmbedder(config, logger);
  if (!(await embedder.embed(['warm up'], 'query'))) {
    process.stderr.write(`no embedding model in ${config.embeddingModelDir} (npm run services -- model): embedding catch-up not measured\n`);
    return undefined;
  }
  const worker = buildEmbeddingWorker(config, logger, storesFor({ elasticsearch, redis }, config), embedder);
  const embedded = async () => (await elasticsearch.count({ index: config.listingsAlias, query: { term: { embeddingModel: config.embeddingModel } } })).count;
  const started = performance.now();
  const deadline = Date.now() + 1_800_000;
  let done = 0;
  while (done < count) {
    if (Date.now() > deadline) fail(`only ${done} of ${count} embedded after 30 minutes`, 1);
    // catchUp returns once a round is not full (the tail, or listings waiting for a refresh).
    if ((await worker.catchUp()) === 0) await new Promise((r) => setTimeout(r, 200));
    done = await embedded();
    bar(done, count, 'embedded  ');
  }
  process.stderr.write('\n');
  const ms = performance.now() - started;
  return { ms: Math.round(ms), perSecond: Math.round(count / (ms / 1000)) };
}

async function main(): Promise<void> {
  let t = performance.now();
  const listings = generateListings(count, Number(values.seed));
  process.stderr.write(`generated ${count} listings in ${Math.round(performance.now() - t)} ms\n`);

  // Start from an empty index and queue so the number measures this run only.
  {
    const setup = await openCatalogSession(env);
    await setup.elasticsearch.indices.delete({ index: setup.config.listingsIndex, ignore_unavailable: true });
    await dropCatalogKeys(setup.redis, setup.config.redisPrefix);
    await setup.close();
  }
  const session = await openCatalogSession(env);
  const { elasticsearch, config, catalog } = session;
  catalog.worker.start();

  const searchable = async () => (await elasticsearch.count({ index: config.listingsAlias })).count;
  t = performance.now();
  let queued = 0;
  for (let start = 0; start < count; start += chunk) {
    const result = await catalog.writer.upsertMany(listings.slice(start, start + chunk), { source: 'bench' });
    if (result.rejected.length > 0) fail(`generator produced invalid listings: ${JSON.stringify(result.rejected.slice(0, 3))}`, 1);
    queued += result.accepted.length;
    bar(queued, count, 'queued    ');
  }
  const queuedMs = performance.now() - t;
  process.stderr.write('\n');

  let seen = 0;
  const deadline = Date.now() + 600_000;
  while (seen < count) {
    if (Date.now() > deadline) fail(`only ${seen} of ${count} searchable after 10 minutes`, 1);
    await new Promise((r) => setTimeout(r, 200));
    seen = await searchable();
    bar(seen, count, 'searchable');
  }
  const totalMs = performance.now() - t;
  process.stderr.write('\n');
  const stats = await catalog.queue.stats();
  await catalog.worker.stop();
  const embedding = values['skip-embedding'] ? undefined : await embeddingCatchUp(session);

  const report = {
    listings: count,
    queueMs: Math.round(queuedMs),
    queuedPerSecond: Math.round(count / (queuedMs / 1000)),
    endToEndMs: Math.round(totalMs),
    endToEndPerSecond: Math.round(count / (totalMs / 1000)),
    target: 5000,
    deadLetters: stats.deadLetters,
    batchSize: config.catalogIngest.batchSize,
    ...(embedding ? { embeddingCatchUpMs: embedding.ms, embeddedPerSecond: embedding.perSecond, embeddingBatchSize: config.embedding.batchSize } : {}),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);

  if (!values.keep) {
    await elasticsearch.indices.delete({ index: config.listingsIndex, ignore_unavailable: true });
    await dropCatalogKeys(session.redis, config.redisPrefix);
    process.stderr.write(`deleted ${config.listingsIndex} (use --keep to leave it for the search benchmark)\n`);
  } else {
    process.stderr.write(`kept ${config.listingsIndex} behind alias ${config.listingsAlias}\n`);
  }
  await session.close();
}

main().catch((err) => fail(`bench-ingest failed: ${(err as Error).stack ?? String(err)}`, 1));
