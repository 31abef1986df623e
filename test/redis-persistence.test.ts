/**
 * Durable by default, and honest when not (issue 26): the service's Redis persistence check, and
 * acknowledged catalog writes surviving `kill -9` of the Redis they were written to. Each case runs
 * its own redis-server (test/support/privateRedis.ts), never the shared one.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { mcpInput } from './support/listings.js';
import { hasRedisServer, startPrivateRedis, type PrivateRedis } from './support/privateRedis.js';

const WRITES = 300;

async function acknowledgedWrites(h: Harness, count: number, label: string): Promise<string[]> {
  const results = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      h.container.catalog.writer.upsert(mcpInput({ resource: `mcp://durable.example/${label}_${i}`, name: `${label}_${i}` }), { source: 'import' }),
    ),
  );
  return results.map((r) => r.id);
}

describe('Redis persistence: the check, and acknowledged writes across kill -9', function () {
  this.timeout(90_000);
  let redis: PrivateRedis | undefined;
  let h: Harness | undefined;

  before(function () {
    if (!hasRedisServer) this.skip();
  });
  afterEach(async () => {
    await h?.close();
    await redis?.close();
    h = undefined;
    redis = undefined;
  });

  it('append-only file, fsync every second: /readyz says durable, and every write acknowledged before kill -9 is applied after the restart', async () => {
    redis = await startPrivateRedis(['--appendonly', 'yes', '--appendfsync', 'everysec']);
    // No consumer yet: the writes stay in the Redis stream, where only the append-only file keeps them.
    h = await startHarness({ REDIS_URL: redis.url }, { workers: false });
    const ready = await request(h.app).get('/readyz').expect(200);
    assert.equal(ready.body.redisPersistence.durable, true);
    assert.match(ready.body.redisPersistence.summary, /append-only file \(fsync everysec\)/);

    const ids = await acknowledgedWrites(h, WRITES, 'kept');
    assert.equal((await h.container.catalog.queue.stats()).depth, WRITES);
    // Right after the last acknowledgement, no pause for an fsync.
    await redis.kill();
    await redis.restart();

    for (const worker of h.container.workers) worker.start();
    const stored = await waitFor(async () => {
      const docs = await h!.container.catalog.reader.getMany(ids);
      return docs.size === WRITES && docs;
    }, 60_000, 250);
    assert.deepEqual(ids.map((id) => stored.get(id)!.name), ids.map((_, i) => `kept_${i}`));
    await waitFor(async () => (await h!.container.catalog.queue.stats()).depth === 0, 30_000, 250);
  });

  it('no persistence: /readyz warns that writes can be lost, and a kill -9 does lose them (what the check is for)', async () => {
    redis = await startPrivateRedis(['--appendonly', 'no']);
    h = await startHarness({ REDIS_URL: redis.url }, { workers: false });
    const ready = await request(h.app).get('/readyz').expect(200);
    assert.equal(ready.body.status, 'ready');
    assert.equal(ready.body.redisPersistence.durable, false);
    assert.match(ready.body.redisPersistence.summary, /can be lost .* no append-only file/);

    await acknowledgedWrites(h, 50, 'lost');
    assert.equal((await h.container.catalog.queue.stats()).depth, 50);
    await redis.kill();
    await redis.restart();
    const after = await waitFor(async () => h!.container.catalog.queue.stats(), 10_000, 100);
    assert.equal(after.depth, 0);
  });
});
