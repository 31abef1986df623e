/**
 * What a Redis failover leaves behind on a consumer that is still alive (issue 26): entries the
 * group counts as delivered to it (the reply was lost with the primary) or as unacknowledged (the
 * promoted replica never got the XACK), which it does not know it holds. It takes them back itself
 * at its next claim check, not after CATALOG_CLAIM_IDLE_MS (set to 10 minutes here, so only the
 * take-back can apply them within the test).
 */
import assert from 'node:assert/strict';
import { WriteStream } from '../src/store/redis/writeStream.js';
import { duplicateClient } from '../src/store/redis/client.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput } from './support/listings.js';

describe('catalog ingest after a Redis failover', function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  after(async () => h?.close());

  it('entries pending on a live consumer that it does not hold (lost delivery) are applied within seconds', async () => {
    h = await startHarness({ CATALOG_CLAIM_IDLE_MS: '600000' });
    const stream = new WriteStream(h.redis, h.config.redisPrefix);
    const consumer = h.container.workers.find((w) => w.name === 'catalog-ingest')!;
    // The consumer's name, as the group knows it once it has read an entry.
    const first = await h.container.catalog.writer.upsert(httpInput({ resource: 'https://failover.example/first' }), { source: 'announce' });
    await waitFor(async () => h!.container.catalog.reader.get(first.id));
    const consumers = (await h.redis.xinfo('CONSUMERS', stream.key, 'catalog-ingest')) as unknown[][];
    assert.equal(consumers.length, 1);
    const name = String(consumers[0]![consumers[0]!.indexOf('name') + 1]);
    await consumer.stop();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await h.container.catalog.writer.upsert(httpInput({ resource: `https://failover.example/r${i}` }), { source: 'announce' })).id);
    // Delivered to that consumer, and the reply never reached it: what a primary dying mid-read leaves.
    const reader = duplicateClient(h.redis);
    const delivered = await stream.readNew(reader, name, 100, 100);
    reader.disconnect();
    assert.equal(delivered.length, 20);
    consumer.start();

    await waitFor(async () => (await h!.container.catalog.reader.getMany(ids)).size === ids.length, 15_000, 100);
    const stats = await waitFor(async () => {
      const s = await h!.container.catalog.queue.stats();
      return s.depth === 0 && s.pending === 0 ? s : undefined;
    });
    assert.equal(stats.deadLetters, 0);
  });
});
