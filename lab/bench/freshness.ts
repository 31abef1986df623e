/**
 * Freshness benchmark (DECISIONS: a write is searchable within 2 s, p99): single upserts at a steady
 * rate through the write path while a poller searches for them; reports how long after the
 * `upsert` call resolved each listing became visible to search.
 *   npx tsx lab/bench/freshness.ts [--writes 300] [--rate 30]
 * Uses LISTINGS_ALIAS / LISTINGS_INDEX / REDIS_PREFIX (defaults bench-fresh-listings,
 * bench-fresh-listings-v1, bench-fresh:) and deletes the index at the end.
 */
import { dropCatalogKeys } from '../../src/door.js';
import { generateListings } from '../lib/listingGenerator.js';
import { benchmarkEnv, openCatalogSession } from '../../src/door.js';
import { fail, numberOption, parseCommandLine } from '../../src/door.js';
import { latencySummary } from '../lib/latency.js';

const { values } = parseCommandLine(
  { options: { writes: { type: 'string', default: '300' }, rate: { type: 'string', default: '30' } } },
  'usage: bench-freshness [--writes 1..10000] [--rate 1..1000 per second]',
);
const writes = numberOption('writes', values.writes, { min: 1, max: 10_000, integer: false });
const rate = numberOption('rate', values.rate, { min: 1, max: 1000, integer: false });
const env = benchmarkEnv({ alias: 'bench-fresh-listings', index: 'bench-fresh-listings-v1', redisPrefix: 'bench-fresh:' });

async function main(): Promise<void> {
  const session = await openCatalogSession(env);
  const { elasticsearch, config, catalog } = session;
  await dropCatalogKeys(session.redis, config.redisPrefix);
  catalog.worker.start();
  const listings = generateListings(writes, 7);
  const written = new Map<string, number>();
  const latencies: number[] = [];
  let writing = true;

  const poller = (async () => {
    while (writing || written.size > 0) {
      const ids = [...written.keys()];
      if (ids.length > 0) {
        const found = await elasticsearch.search<{ id: string }>({
          index: config.listingsAlias,
          size: ids.length,
          query: { terms: { id: ids } },
          _source: ['id'],
        });
        const at = performance.now();
        for (const hit of found.hits.hits) {
          const id = hit._source?.id;
          const start = id ? written.get(id) : undefined;
          if (id && start !== undefined) {
            latencies.push(at - start);
            written.delete(id);
          }
        }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();

  const interval = 1000 / rate;
  const began = performance.now();
  for (let i = 0; i < writes; i++) {
    const due = began + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const { id } = await catalog.writer.upsert(listings[i]!, { source: 'bench' });
    written.set(id, performance.now());
  }
  writing = false;
  const deadline = Date.now() + 60_000;
  while (written.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const lost = written.size;
  written.clear();
  await poller;
  await catalog.worker.stop();

  const report = {
    writes,
    ratePerSecond: rate,
    visible: latencies.length,
    notVisibleAfter60s: lost,
    ...latencySummary(latencies),
    targetP99Ms: 2000,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  await elasticsearch.indices.delete({ index: config.listingsIndex, ignore_unavailable: true });
  await dropCatalogKeys(session.redis, config.redisPrefix);
  await session.close();
}

main().catch((err) => fail(`bench-freshness failed: ${(err as Error).stack ?? String(err)}`, 1));
