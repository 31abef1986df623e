/**
 * The writes of a live catalog, for `bench-search --live` (lab/lib/liveShape.ts starts this file as
 * a process of its own, so its CPU is neither the gateway's nor the load generator's). Through the
 * service's own write path (the durable writer, the Redis stream, the write consumer's bulk writes),
 * under a Redis prefix of its own so that the measured gateway applies none of them:
 * - signal flushes: once a second, as the signal flusher does, the signals block of
 *   `SIGNAL_RATE` random listings a second (settlements and health checks make a listing dirty);
 * - listing updates: `UPDATE_RATE` listings a second rewritten as a probe finds them, with a new
 *   price (the embedded text stays the same, so no embedding work follows).
 * Each is a partial or whole rewrite of the stored document (its vector included) in Elasticsearch,
 * which refreshes every second: new segments, which the default merge policy merges.
 *
 * Environment: LISTINGS_ALIAS, LISTINGS_INDEX, REDIS_PREFIX (the writer's own), LIVE_COUNT (the
 * listings the catalog was generated with), LIVE_SIGNAL_RATE, LIVE_UPDATE_RATE. On SIGTERM it stops
 * writing, lets the consumer apply what is queued and prints one JSON line: what was written.
 */
import { drainQueue, openCatalogSession, type ListingInput } from '../../src/door.js';
import { generateListings } from './listingGenerator.js';

const count = Number(process.env.LIVE_COUNT ?? 100_000);
const signalRate = Number(process.env.LIVE_SIGNAL_RATE ?? 0);
const updateRate = Number(process.env.LIVE_UPDATE_RATE ?? 0);
const IDS_SAMPLED = 10_000;

const session = await openCatalogSession({ ...process.env, LOG_LEVEL: 'error' });
const { writer } = session.catalog;
const found = await session.elasticsearch.search({
  index: session.config.listingsAlias,
  size: Math.min(IDS_SAMPLED, count),
  _source: false,
  docvalue_fields: ['id'],
  query: { function_score: { query: { bool: { must_not: [{ term: { removed: true } }] } }, random_score: {} } },
  filter_path: 'hits.hits.fields.id',
} as never);
const ids = ((found as { hits?: { hits?: Array<{ fields?: { id?: string[] } }> } }).hits?.hits ?? []).flatMap((hit) => hit.fields?.id ?? []);
const listings: ListingInput[] = updateRate > 0 ? generateListings(count) : [];
if (ids.length === 0) throw new Error('live writer: no listing ids found');

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;
const written = { signals: 0, updates: 0, startedAt: Date.now(), stoppedAt: 0 };
let stopping = false;

/** Once a second: the dirty listings' signals (one bulk), and this second's listing updates. */
async function tick(): Promise<void> {
  const now = new Date().toISOString();
  const dirty = Array.from({ length: signalRate }, () => ({ id: pick(ids), signals: { settleCount7d: 1 + Math.floor(Math.random() * 500), rejectionRate7d: 0, lastSettled: now } }));
  if (dirty.length > 0) await writer.updateSignals(dirty);
  written.signals += dirty.length;
  const updates = Array.from({ length: updateRate }, () => {
    const listing = pick(listings);
    return { ...listing, payment: { ...listing.payment, amount: String(100 + Math.floor(Math.random() * 1_000_000)) } };
  });
  if (updates.length > 0) written.updates += (await writer.upsertMany(updates, { source: 'bench' })).accepted.length;
}

session.catalog.worker.start();
const loop = (async () => {
  while (!stopping) {
    const started = Date.now();
    await tick();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - started))));
  }
})();

process.once('SIGTERM', () => {
  stopping = true;
  void (async () => {
    await loop;
    written.stoppedAt = Date.now();
    await drainQueue(session, { timeoutMs: 120_000 });
    process.stdout.write(`${JSON.stringify(written)}\n`);
    await session.close();
    process.exit(0);
  })();
});
process.stdout.write('live writer ready\n');
