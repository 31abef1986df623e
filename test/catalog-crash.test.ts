/**
 * A consumer that crashed (kill -9) holding delivered, unacknowledged writes: another process takes
 * them over once the crashed one's heartbeat expires, not after CATALOG_CLAIM_IDLE_MS (issue 9,
 * defect 10).
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { createLogger } from '../src/logger.js';
import { changeRecorder } from '../src/changes/index.js';
import { buildCatalog } from '../src/catalog/index.js';
import { createElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { WriteStream } from '../src/store/redis/writeStream.js';
import { startHarness, testConfig, uniqueNames, waitFor, type Harness } from './support/harness.js';
import { httpInput } from './support/listings.js';
import { storesFor } from '../src/store/stores.js';
import { RedisStores } from '../src/store/redis/redisStores.js';

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
    const crashed = buildCatalog(config, silent, storesFor({ elasticsearch, redis }, config), changeRecorder(new RedisStores(redis, config.redisPrefix)));
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

  it('a consumer stopping while Elasticsearch does not answer stops after CATALOG_STOP_WAIT_MS; what it held is applied by another consumer', async () => {
    const names = uniqueNames('stopwait');
    const shared = { LISTINGS_ALIAS: names.listingsAlias, LISTINGS_INDEX: names.listingsIndex, REDIS_PREFIX: names.redisPrefix };
    // An Elasticsearch that accepts connections and never answers: each request waits for its timeout.
    const sockets = new Set<Socket>();
    const blackHole = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const config = testConfig({ ...shared, CATALOG_STOP_WAIT_MS: '500' });
    const redis = createRedisClient(config.redisUrl);
    const stuckEs = createElasticsearchClient(`http://127.0.0.1:${(blackHole.address() as { port: number }).port}`);
    const stuck = buildCatalog(config, silent, storesFor({ elasticsearch: stuckEs, redis }, config), changeRecorder(new RedisStores(redis, config.redisPrefix)));
    let next: Harness | undefined;
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await stuck.writer.upsert(httpInput({ resource: `https://stopwait.example/r${i}` }), { source: 'announce' })).id);
      stuck.worker.start();
      // Delivered to the stuck consumer, its _bulk on the way to the black hole.
      await waitFor(async () => (await stuck.queue.stats()).pending === ids.length || undefined, 10_000, 20);
      const stopping = Date.now();
      await stuck.worker.stop();
      const took = Date.now() - stopping;
      assert.ok(took < 2000, `stop took ${took} ms (the _bulk waits up to 2 x 10 s)`);
      assert.equal((await stuck.queue.stats()).depth, ids.length, 'nothing acknowledged: every entry is still in the stream');

      const restarted = (next = await startHarness(shared));
      await waitFor(async () => (await restarted.container.catalog.reader.getMany(ids)).size === ids.length, 15_000, 100);
      const stats = await waitFor(async () => {
        const s = await restarted.container.catalog.queue.stats();
        return s.depth === 0 ? s : undefined;
      });
      assert.equal(stats.pending, 0);
    } finally {
      await next?.close();
      for (const socket of sockets) socket.destroy();
      blackHole.close();
      await Promise.allSettled([stuckEs.close(), redis.quit()]);
    }
  });
});
