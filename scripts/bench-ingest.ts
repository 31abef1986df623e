/**
 * Ingest benchmark: loads generated listings through the bulk write path (validation, Redis stream,
 * ingest consumer, Elasticsearch `_bulk`) and measures until every one is searchable (count on the
 * alias). Target: >= 5,000 listings/s end to end.
 *   npx tsx scripts/bench-ingest.ts [--count 100000] [--seed 1] [--keep]
 * Index names via LISTINGS_ALIAS / LISTINGS_INDEX / REDIS_PREFIX (defaults: bench-listings,
 * bench-listings-v1, bench:). The index is recreated at the start and deleted at the end unless
 * --keep (the search benchmark reuses it).
 */
import { dropCatalogKeys } from '../src/store/writeStream.js';
import { generateListings } from './lib/listingGenerator.js';
import { benchmarkEnv, openCatalogSession } from './lib/catalogSession.js';
import { fail, numberOption, parseCommandLine } from './lib/cliOptions.js';

const { values } = parseCommandLine(
  {
    options: {
      count: { type: 'string', default: '100000' },
      seed: { type: 'string', default: '1' },
      chunk: { type: 'string', default: '5000' },
      keep: { type: 'boolean', default: false },
    },
  },
  'usage: bench-ingest [--count N] [--seed N] [--chunk N] [--keep]',
);
const count = numberOption('count', values.count, { max: 1_000_000 });
const chunk = numberOption('chunk', values.chunk);
const env = benchmarkEnv({ alias: 'bench-listings', index: 'bench-listings-v1', redisPrefix: 'bench:' });

function bar(done: number, total: number, label: string): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}   `);
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

  const report = {
    listings: count,
    queueMs: Math.round(queuedMs),
    queuedPerSecond: Math.round(count / (queuedMs / 1000)),
    endToEndMs: Math.round(totalMs),
    endToEndPerSecond: Math.round(count / (totalMs / 1000)),
    target: 5000,
    deadLetters: stats.deadLetters,
    batchSize: config.catalogIngest.batchSize,
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
