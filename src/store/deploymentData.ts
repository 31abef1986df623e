/**
 * Removing everything one deployment (one listings index name and one Redis prefix) has stored:
 * what tests and benchmarks do with their scratch deployments when they finish.
 */
import type { ElasticsearchClient } from './elasticsearch.js';
import type { Redis } from './redis.js';
import { redisKeys } from './redisKeys.js';

export interface DeploymentNames {
  listingsIndex: string;
  /** With it, the indices `npm run reindex` made behind it (`<alias>-v<N>`) go too. */
  listingsAlias?: string;
  redisPrefix: string;
}

/**
 * A wildcard delete needs action.destructive_requires_name=false (scripts/services.sh sets it).
 * Errors are swallowed: cleanup must not hide the outcome of the run it follows.
 */
export async function dropDeploymentIndices(elasticsearch: ElasticsearchClient, listingsIndex: string, listingsAlias?: string): Promise<void> {
  const patterns = [`${listingsIndex}*`, ...(listingsAlias ? [`${listingsAlias}-v*`] : [])];
  await elasticsearch.indices.delete({ index: patterns.join(','), ignore_unavailable: true, allow_no_indices: true }).catch(() => {});
}

/** SCAN rather than KEYS so a shared Redis is not blocked while a large prefix is listed. */
export async function dropRedisPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', redisKeys(prefix).everything, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

export async function dropDeploymentData(elasticsearch: ElasticsearchClient, redis: Redis, names: DeploymentNames): Promise<void> {
  await dropDeploymentIndices(elasticsearch, names.listingsIndex, names.listingsAlias);
  await dropRedisPrefix(redis, names.redisPrefix);
}
