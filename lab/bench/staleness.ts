/**
 * Staleness at catalog scale: loads N generated listings (default 100,000) whose lastSeen is spread
 * over the last ~60 days, then times (1) the query a sweep makes when nothing is stale, (2) one
 * sweep expiring up to 10,000 stale listings (ES range + search_after pages, remove() per id), and
 * (3) how long the catalog write path takes to apply those removals.
 *   npx tsx lab/bench/staleness.ts [--count 100000]
 * Own index (bench-stale-*) and Redis prefix, deleted at the end.
 */
import { ElasticsearchStaleListingFinder } from '../../src/door.js';
import { ProbeStore } from '../../src/door.js';
import { StalenessWorker } from '../../src/door.js';
import { dropDeploymentData } from '../../src/door.js';
import { drainQueue, openCatalogSession } from '../../src/door.js';
import { generateListings } from '../lib/listingGenerator.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';

const { values } = parseCommandLine({ options: { count: { type: 'string', default: '100000' } } }, 'usage: bench-staleness [--count N]');
const count = numberOption('count', values.count);
const DAY = 86_400_000;
/** Twenty batches, each with its own lastSeen, 3 days apart. */
const BATCHES = 20;

async function main(): Promise<void> {
  const tag = Date.now().toString(36);
  const session = await openCatalogSession({
    ...process.env,
    LISTINGS_ALIAS: `bench-stale-${tag}`,
    LISTINGS_INDEX: `bench-stale-${tag}-v1`,
    REDIS_PREFIX: `bench-stale:${tag}:`,
  });
  const { config, elasticsearch, redis, catalog, logger } = session;
  const now = Date.now();
  try {
    const listings = generateListings(count, 7);
    const size = Math.ceil(count / BATCHES);
    for (let k = 0; k < BATCHES; k += 1) {
      // Batch k was last seen 3k days ago: about half the catalog is older than 30 days.
      const seenAt = new Date(now - k * 3 * DAY - 1000);
      await catalog.writer.upsertMany(listings.slice(k * size, (k + 1) * size), { source: 'bench', seenAt });
      process.stderr.write(`\rqueued ${Math.min((k + 1) * size, count)}/${count}`);
    }
    await drainQueue(session, { timeoutMs: 600_000, pollMs: 500, onProgress: (s) => process.stderr.write(`\rapplying: ${s.depth} left      `) });
    await elasticsearch.indices.refresh({ index: config.listingsAlias });
    const stale = (await elasticsearch.count({ index: config.listingsAlias, query: { range: { lastSeen: { lt: new Date(now - 30 * DAY).toISOString() } } } })).count;
    process.stderr.write(`\nloaded ${count} listings, ${stale} not seen for 30 days\n`);

    const finder = new ElasticsearchStaleListingFinder(elasticsearch, config.listingsAlias);
    const idleTimes: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const t = performance.now();
      await finder.seenBefore(new Date(now - 90 * DAY), 500);
      idleTimes.push(performance.now() - t);
    }
    idleTimes.sort((a, b) => a - b);

    const sweeper = new StalenessWorker(finder, catalog.writer, new ProbeStore(redis, config.redisPrefix), logger, {
      staleAfterMs: 30 * DAY,
      sweepIntervalMs: 60_000,
      now: () => now,
    });
    let t = performance.now();
    const removed = await sweeper.sweep();
    const sweepMs = performance.now() - t;
    t = performance.now();
    await drainQueue(session, { timeoutMs: 600_000, pollMs: 100 });
    const appliedMs = performance.now() - t;

    process.stdout.write(
      `${JSON.stringify(
        {
          listings: count,
          staleAtStart: stale,
          sweepQueryWhenNothingIsStale: { p50Ms: +idleTimes[10]!.toFixed(1), maxMs: +idleTimes[19]!.toFixed(1) },
          oneSweep: { removed: removed.length, sweepMs: Math.round(sweepMs), removalsAppliedInMs: Math.round(appliedMs) },
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await dropDeploymentData(elasticsearch, redis, config);
    await session.close();
  }
}

runMain('bench-staleness', main);
