/**
 * Per-host probe pacing in Redis (store/redis/probeStore.ts): a request to a host may start only
 * while fewer than the rate are running or ended within the last second, so the host never
 * receives more in one second however long each start takes to arrive.
 */
import assert from 'node:assert/strict';
import { createRedisClient, type RedisClient } from '../src/store/redis/client.js';
import { ProbeStore } from '../src/store/redis/probeStore.js';
import { uniqueNames } from './support/harness.js';

describe('probe pacing: requests running or ended within the last second, per host', () => {
  let redis: RedisClient;
  let store: ProbeStore;
  let prefix: string;

  before(() => {
    redis = createRedisClient(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    prefix = uniqueNames('pacing').redisPrefix;
    store = new ProbeStore(redis, prefix);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('a running request holds its slot until it ends, and for one second after', async () => {
    const t = 1_000_000;
    const first = await store.takeHostSlot('a.example:443', t, 2, 5000);
    const second = await store.takeHostSlot('a.example:443', t + 10, 2, 5000);
    assert.ok(first && second);
    assert.equal(await store.takeHostSlot('a.example:443', t + 20, 2, 5000), undefined, 'two running: the third waits');
    assert.ok(await store.takeHostSlot('b.example:443', t + 20, 2, 5000), 'another host has its own budget');
    // Still running 3 s later: a slow request keeps counting (its request may arrive late).
    assert.equal(await store.takeHostSlot('a.example:443', t + 3000, 2, 5000), undefined);
    await store.releaseHostSlot('a.example:443', first, t + 3000);
    assert.equal(await store.takeHostSlot('a.example:443', t + 3999, 2, 5000), undefined, 'ended less than a second ago');
    assert.ok(await store.takeHostSlot('a.example:443', t + 4001, 2, 5000), 'a second after it ended');
    // A request never given back counts until its hold ran out.
    assert.equal(await store.takeHostSlot('a.example:443', t + 4002, 2, 5000), undefined);
    assert.ok(await store.takeHostSlot('a.example:443', t + 6011, 2, 5000));
  });
});

describe('probe pacing per resolved address, not per name (issue 43)', function () {
  this.timeout(30_000);

  it('two names of one address share its budget: the seller never gets two probes within a second', async () => {
    const { startHarness, waitFor } = await import('./support/harness.js');
    const { answers, startServer, v1Challenge } = await import('./support/sellers.js');
    const arrivals: number[] = [];
    const seller = await startServer({
      '/a': (req, res) => {
        arrivals.push(Date.now());
        answers.v1(() => v1Challenge(seller.url('/a')))(req, res);
      },
      '/b': (req, res) => {
        arrivals.push(Date.now());
        answers.v1(() => v1Challenge(seller.url('/b')))(req, res);
      },
    });
    const h = await startHarness({ PROBE_ALLOW: '127.0.0.1/32', PROBE_HOST_RATE: '1', RATE_LIMIT_ANNOUNCE: 'off' });
    try {
      // `localhost` resolves to 127.0.0.1 here: a wildcard name pointed at a victim's address does the same.
      for (const url of [`http://127.0.0.1:${seller.port}/a`, `http://localhost:${seller.port}/b`]) {
        await h.container.announce.announce({ resource: url });
      }
      await waitFor(async () => arrivals.length === 2, 15_000);
      assert.ok(arrivals[1]! - arrivals[0]! >= 900, `two probes ${arrivals[1]! - arrivals[0]!} ms apart`);
      const windows = await h.redis.keys(`${h.config.redisPrefix}*probe:host:*`);
      assert.deepEqual(windows.map((k) => k.split('probe:host:')[1]), ['127.0.0.1']);
    } finally {
      await h.close();
      await seller.close();
    }
  });
});
