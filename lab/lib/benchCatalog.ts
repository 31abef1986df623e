/**
 * Fills a scratch listing index for the search benchmark: generated listings (listingGenerator)
 * through the bulk write path, like any producer, with a progress line on stderr.
 */
import { drainQueue, openCatalogSession } from '../../src/door.js';
import { generateListings } from './listingGenerator.js';

const CHUNK = 5000;

/** Loads listings `from`..`count` of the generated sequence (the same seed: earlier ones stay the same). */
export async function loadGeneratedListings(env: Record<string, string>, count: number, options: { from?: number } = {}): Promise<void> {
  const session = await openCatalogSession({ ...process.env, ...env });
  const started = Date.now();
  try {
    const from = options.from ?? 0;
    const listings = generateListings(count);
    let rejected = 0;
    for (let offset = from; offset < listings.length; offset += CHUNK) {
      const result = await session.catalog.writer.upsertMany(listings.slice(offset, offset + CHUNK), { source: 'bench' });
      rejected += result.rejected.length;
      process.stderr.write(`\rqueued ${Math.min(offset + CHUNK, listings.length)}/${count}`);
    }
    await drainQueue(session, {
      // 500 listings/s at worst (a busy 2-core machine), and never less than 10 minutes.
      timeoutMs: Math.max(600_000, (count - from) * 2),
      pollMs: 500,
      onProgress: (stats) => process.stderr.write(`\rapplying: ${stats.depth} writes left      `),
    });
    await session.elasticsearch.indices.refresh({ index: session.config.listingsAlias });
    const seconds = (Date.now() - started) / 1000;
    process.stderr.write(`\rloaded ${count - from - rejected} listings in ${seconds.toFixed(1)} s (${rejected} rejected)\n`);
  } finally {
    await session.close();
  }
}
