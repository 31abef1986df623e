import assert from 'node:assert/strict';
import { migrateKeysToHashTags } from '../scripts/lib/keyMigration.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { dropRedisPrefix } from '../src/store/redis/client.js';
import { startHarness, testConfig } from './support/harness.js';

describe('npm run redis:migrate-keys: a deployment from before the hash tags keeps its data', () => {
  it('renames the old names once; settlement records land in their slot group, the service reads tokens and live ids after it', async () => {
    const { redisPrefix: prefix } = testConfig();
    const redis = createRedisClient(testConfig().redisUrl);
    try {
      // The names as the previous version wrote them (literal on purpose: they are history).
      // (A settlement's stored result: the test ledger's balances, once used here, go with issue 44.)
      await redis.set(`${prefix}settle:result:0xpayload`, '{"success":true}');
      await redis.hset(`${prefix}seller-token:tok_0123456789abcdef`, { id: 'tok_0123456789abcdef', hosts: '["old.example"]', createdAt: '2026-01-01T00:00:00.000Z', hash: 'ab' });
      await redis.zadd(`${prefix}seller-tokens`, Date.parse('2026-01-01'), 'tok_0123456789abcdef');
      await redis.sadd(`${prefix}catalog:live`, 'lst_000000000000000000000001');
      await redis.set(`${prefix}cursor-secret`, 'a-secret-of-sixteen-chars');
      // Written by the new version meanwhile: the old key of this name is kept, not merged over it.
      await redis.set(`${prefix}{ledger}settle:result:0xother`, '7');
      await redis.set(`${prefix}settle:result:0xother`, '5');

      const first = await migrateKeysToHashTags(redis, prefix);
      assert.equal(first.renamed, 4);
      assert.deepEqual(first.conflicts, [`${prefix}settle:result:0xother`]);
      const again = await migrateKeysToHashTags(redis, prefix);
      assert.equal(again.renamed, 0, 'idempotent');

      const keys = redisKeys(prefix);
      assert.equal(await redis.get(keys.cursorSecret), 'a-secret-of-sixteen-chars', 'single-key names did not change');
      assert.equal(await redis.sismember(keys.liveIds, 'lst_000000000000000000000001'), 1);
      assert.equal(await redis.get(keys.settleResult('0xother')), '7');
      assert.equal(await redis.get(keys.settleResult('0xpayload')), '{"success":true}');

      const h = await startHarness({ REDIS_PREFIX: prefix }, { workers: false });
      try {
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
