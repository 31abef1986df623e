import assert from 'node:assert/strict';
import { RedisLease } from '../src/store/redis/lease.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('leased background passes with several instances', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({}, { workers: false });
  });
  after(() => h.close());

  describe('the lease (SET NX PX, compare-and-extend, compare-and-delete)', () => {
    it('one holder at a time; a holder that stops renewing loses it to another after the TTL', async () => {
      const key = redisKeys(h.config.redisPrefix).lease('ttl-test');
      const first = new RedisLease(h.redis, key, 400);
      const second = new RedisLease(h.redis, key, 400);
      assert.equal(await first.hold(), true);
      assert.equal(await second.hold(), false, 'taken');
      await sleep(250);
      assert.equal(await first.hold(), true, 'its holder extends it');
      await sleep(250);
      assert.equal(await second.hold(), false, 'the extension counts from the renewal, not the first take');
      // `first` dies here: it never renews again.
      await sleep(450);
      assert.equal(await second.hold(), true, 'taken over once the TTL ran out');
      assert.equal(await first.hold(), false, 'the old holder cannot extend what it lost');
      await first.release();
      assert.equal(await h.redis.get(key), second.token, 'nor give it back');
      await second.release();
      assert.equal(await h.redis.exists(key), 0);
    });
  });

  describe('two app instances on one Redis and one index', () => {
    const sweepsOf = (instance: Harness): { count: number } => {
      const seen = { count: 0 };
      const worker = instance.container.staleness;
      const sweep = worker.sweep.bind(worker);
      worker.sweep = () => {
        seen.count += 1;
        return sweep();
      };
      return seen;
    };

    it('the staleness sweep runs once per period between them and moves to the other when its holder stops', async function () {
      this.timeout(30_000);
      const shared = { REDIS_PREFIX: h.config.redisPrefix, LISTINGS_ALIAS: h.config.listingsAlias, LISTINGS_INDEX: h.config.listingsIndex, STALE_SWEEP_INTERVAL_MS: '1000' };
      const a = await startHarness(shared, { workers: false });
      const b = await startHarness(shared, { workers: false });
      const sweepsA = sweepsOf(a);
      const sweepsB = sweepsOf(b);
      try {
        const started = Date.now();
        a.container.staleness.start();
        b.container.staleness.start();
        await sleep(4500);
        const periods = (Date.now() - started) / 1000;
        const total = sweepsA.count + sweepsB.count;
        // Unleased, both would sweep every period (about 2 x periods passes).
        assert.ok(total >= 3 && total <= Math.ceil(periods), `${total} sweeps in ${periods.toFixed(1)} periods`);
        assert.ok(sweepsA.count === 0 || sweepsB.count === 0, `one holder: a=${sweepsA.count} b=${sweepsB.count}`);
        const [holder, holderSweeps, other, otherSweeps] = sweepsA.count > 0 ? [a, sweepsA, b, sweepsB] : [b, sweepsB, a, sweepsA];

        await holder.container.staleness.stop();
        const stoppedAt = holderSweeps.count;
        await waitFor(async () => otherSweeps.count >= 2, 5000, 50);
        assert.equal(holderSweeps.count, stoppedAt, 'the stopped instance sweeps no more');
        assert.ok(other !== holder);
      } finally {
        // Both drop the shared prefix and index (a second drop finds nothing); `h` closes last.
        await a.close();
        await b.close();
      }
    });
  });
});
