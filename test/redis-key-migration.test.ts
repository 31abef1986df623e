import assert from 'node:assert/strict';
import { migrateKeysToHashTags } from '../scripts/lib/keyMigration.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { dropRedisPrefix } from '../src/store/redis/client.js';
import { startHarness, testConfig } from './support/harness.js';
import { NETWORK, USDC } from './support/payments.js';

describe('npm run redis:migrate-keys: a deployment from before the hash tags keeps its data', () => {
  it('renames the old names once; the service reads the ledger, tokens and live ids after it', async () => {
    const { redisPrefix: prefix } = testConfig();
    const redis = createRedisClient(testConfig().redisUrl);
    const payer = '0x00000000000000000000000000000000000000aa';
    try {
      // The names as the previous version wrote them (literal on purpose: they are history).
      await redis.set(`${prefix}ledger:balance:${NETWORK}:${USDC.toLowerCase()}:${payer}`, '4200');
      await redis.hset(`${prefix}seller-token:tok_0123456789abcdef`, { id: 'tok_0123456789abcdef', hosts: '["old.example"]', createdAt: '2026-01-01T00:00:00.000Z', hash: 'ab' });
      await redis.zadd(`${prefix}seller-tokens`, Date.parse('2026-01-01'), 'tok_0123456789abcdef');
      await redis.sadd(`${prefix}catalog:live`, 'lst_000000000000000000000001');
      await redis.set(`${prefix}cursor-secret`, 'a-secret-of-sixteen-chars');
      // Written by the new version meanwhile: the old key of this name is kept, not merged over it.
      await redis.set(`${prefix}{ledger}ledger:sponsor:${NETWORK}`, '7');
      await redis.set(`${prefix}ledger:sponsor:${NETWORK}`, '5');

      const first = await migrateKeysToHashTags(redis, prefix);
      assert.equal(first.renamed, 4);
      assert.deepEqual(first.conflicts, [`${prefix}ledger:sponsor:${NETWORK}`]);
      const again = await migrateKeysToHashTags(redis, prefix);
      assert.equal(again.renamed, 0, 'idempotent');

      const keys = redisKeys(prefix);
      assert.equal(await redis.get(keys.cursorSecret), 'a-secret-of-sixteen-chars', 'single-key names did not change');
      assert.equal(await redis.sismember(keys.liveIds, 'lst_000000000000000000000001'), 1);
      assert.equal(await redis.get(keys.ledgerSponsor(NETWORK)), '7');

      const h = await startHarness({ REDIS_PREFIX: prefix }, { workers: false });
      try {
        assert.equal(await h.container.facilitator.ledger.balance(NETWORK, USDC, payer), 4200n);
        assert.deepEqual((await h.container.publishing.tokens.list()).map((t) => t.hosts), [['old.example']]);
      } finally {
        await h.close();
      }
    } finally {
      await dropRedisPrefix(redis, prefix);
      redis.disconnect();
    }
  });
});
