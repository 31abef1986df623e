/**
 * Removing everything one deployment (one listings index name and one Redis prefix) has stored:
 * what tests and benchmarks do with their scratch deployments when they finish.
 */
import type { ElasticsearchClient } from './elasticsearch.js';
import { deleteKeys, scanKeys, type RedisClient } from './redis.js';
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

/** Every key under `prefix` (on a Cluster, on every primary). */
export async function dropRedisPrefix(redis: RedisClient, prefix: string): Promise<void> {
  await scanKeys(redis, redisKeys(prefix).everything, (keys) => deleteKeys(redis, keys));
}

export async function dropDeploymentData(elasticsearch: ElasticsearchClient, redis: RedisClient, names: DeploymentNames): Promise<void> {
  await dropDeploymentIndices(elasticsearch, names.listingsIndex, names.listingsAlias);
  await dropRedisPrefix(redis, names.redisPrefix);
}
