/**
 * A consumer that crashed (kill -9) holding delivered, unacknowledged writes: another process takes
 * them over once the crashed one's heartbeat expires, not after CATALOG_CLAIM_IDLE_MS (issue 9,
 * defect 10).
 */
import assert from 'node:assert/strict';
import { createLogger } from '../src/logger.js';
import { buildCatalog } from '../src/catalog/index.js';
import { createElasticsearchClient } from '../src/store/elasticsearch.js';
import { createRedisClient } from '../src/store/redis.js';
import { WriteStream } from '../src/store/writeStream.js';
import { startHarness, testConfig, uniqueNames, waitFor, type Harness } from './support/harness.js';
import { httpInput } from './support/listings.js';

const silent = createLogger('error', { silent: true });

describe('catalog ingest after a crash', function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  after(async () => h?.close());

  it('writes a crashed consumer held are searchable within seconds of a restart, though CATALOG_CLAIM_IDLE_MS is 30 s', async () => {
    const names = uniqueNames('crash');
    const shared = { LISTINGS_ALIAS: names.listingsAlias, LISTINGS_INDEX: names.listingsIndex, REDIS_PREFIX: names.redisPrefix };
    // The process that crashes: it queues writes, and its consumer reads them and dies before applying them.
    const config = testConfig(shared);
    const redis = createRedisClient(config.redisUrl);
    const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
    const crashed = buildCatalog(config, silent, { elasticsearch, redis });
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await crashed.writer.upsert(httpInput({ resource: `https://crash.example/r${i}` }), { source: 'announce' })).id);
    const stream = new WriteStream(redis, config.redisPrefix);
    await stream.ensureGroup();
    const reader = redis.duplicate();
    // What a consumer does before applying, with a heartbeat that then stops (its key expires as after kill -9).
    await stream.heartbeat('crashed-consumer', 300);
    const delivered = await stream.readNew(reader, 'crashed-consumer', 100, 100);
    assert.equal(delivered.length, 25);
    reader.disconnect();
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);

    // The restarted service, with the default 30 s claim time for consumers that are alive but stuck.
    h = await startHarness({ ...shared, CATALOG_CLAIM_IDLE_MS: '30000' });
    assert.equal(h.config.catalogIngest.claimIdleMs, 30_000);
    const started = Date.now();
    await waitFor(async () => (await h!.container.catalog.reader.getMany(ids)).size === ids.length, 10_000, 100);
    assert.ok(Date.now() - started < 10_000);
    const stats = await waitFor(async () => {
      const s = await h!.container.catalog.queue.stats();
      return s.depth === 0 ? s : undefined;
    });
    assert.equal(stats.pending, 0);
  });

  it('a live consumer keeps what it holds; the same consumer without a heartbeat loses it', async () => {
    h = h ?? (await startHarness());
    // A stream of its own that no worker of the harness reads.
    const stream = new WriteStream(h.redis, `${h.config.redisPrefix}solo:`);
    await stream.ensureGroup();
    await stream.heartbeat('busy-consumer', 10_000);
    await stream.append([{ payload: JSON.stringify({ op: 'touch', id: 'lst_000000000000000000000000', seenAt: new Date().toISOString() }) }]);
    const reader = h.redis.duplicate();
    const delivered = await stream.readNew(reader, 'busy-consumer', 10, 50);
    reader.disconnect();
    assert.equal(delivered.length, 1);
    assert.deepEqual(await stream.claimFromDeadConsumers('another-consumer', 0, 100), []);
    await stream.forgetHeartbeat('busy-consumer');
    const claimed = await stream.claimFromDeadConsumers('another-consumer', 0, 100);
    assert.deepEqual(claimed.map((e) => e.entryId), [delivered[0]!.entryId]);
  });
});
