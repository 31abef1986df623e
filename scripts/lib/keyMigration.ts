/**
 * One-off rename of a deployment's Redis keys from the names before the Cluster hash tags
 * (`<prefix>settle:result:...`) to the tagged ones (`<prefix>{ledger}settle:result:...`), so an
 * existing single-Redis deployment keeps its settlement results, tokens, write stream and schedules after the
 * upgrade (`npm run redis:migrate-keys`; run it with the service stopped). Idempotent: tagged keys
 * are left alone, and RENAMENX never overwrites a key the new version already wrote.
 */
import { scanKeys, type RedisClient } from '../../src/store/redis/client.js';
import { redisKeys, taggedName } from '../../src/store/redis/redisKeys.js';

export interface KeyMigration {
  renamed: number;
  /** Old keys kept because a key of the new name exists already (written since the upgrade). */
  conflicts: string[];
}

export async function migrateKeysToHashTags(redis: RedisClient, prefix: string): Promise<KeyMigration> {
  const result: KeyMigration = { renamed: 0, conflicts: [] };
  await scanKeys(redis, redisKeys(prefix).everything, async (keys) => {
    for (const key of keys) {
      const target = taggedName(prefix, key);
      if (!target) continue;
      // On a Cluster the old and new name hash to different slots: RENAME is refused there, so
      // the migration is for a single Redis, before it is moved into a Cluster.
      if ((await redis.renamenx(key, target)) === 1) result.renamed += 1;
      else result.conflicts.push(key);
    }
  });
  return result;
}
