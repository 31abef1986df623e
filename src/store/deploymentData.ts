/**
 * Removing everything one deployment (one listings index name and one Redis prefix) has stored:
 * what tests and benchmarks do with their scratch deployments when they finish.
 */
import type { ElasticsearchClient } from './elasticsearch/client.js';
import { dropDeploymentIndices } from './elasticsearch/listingIndex.js';
import { dropRedisPrefix, type RedisClient } from './redis/client.js';

export interface DeploymentNames {
  listingsIndex: string;
  /** With it, the indices `npm run reindex` made behind it (`<alias>-v<N>`) go too. */
  listingsAlias?: string;
  redisPrefix: string;
}

export async function dropDeploymentData(elasticsearch: ElasticsearchClient, redis: RedisClient, names: DeploymentNames): Promise<void> {
  await dropDeploymentIndices(elasticsearch, names.listingsIndex, names.listingsAlias);
  await dropRedisPrefix(redis, names.redisPrefix);
}
