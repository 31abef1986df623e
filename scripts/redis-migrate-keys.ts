/**
 * Renames a deployment's Redis keys to their Cluster hash-tagged names (scripts/lib/keyMigration.ts):
 * run once, with the service stopped, on a single Redis holding data from before the tags.
 *   npm run redis:migrate-keys        (REDIS_URL and REDIS_PREFIX as for the service)
 */
import { migrateKeysToHashTags } from './lib/keyMigration.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { loadConfigOrFail } from '../src/cli/options.js';

const config = loadConfigOrFail();
const redis = createRedisClient(config.redisUrl);
try {
  const { renamed, conflicts } = await migrateKeysToHashTags(redis, config.redisPrefix);
  process.stdout.write(`renamed ${renamed} keys under ${config.redisPrefix}\n`);
  if (conflicts.length > 0) {
    process.stderr.write(`kept ${conflicts.length} old keys whose new name exists already (first: ${conflicts[0]}); inspect them by hand\n`);
    process.exitCode = 1;
  }
} finally {
  redis.disconnect();
}
