/**
 * The store adapters of one deployment, per engine: what the composition root hands the features
 * (each feature's `index.ts` builds its services from them), so that no feature holds a client.
 */
import type { Clients } from './clients.js';
import { ElasticsearchStores } from './elasticsearch/elasticsearchStores.js';
import { RedisStores } from './redis/redisStores.js';

export interface Stores {
  elasticsearch: ElasticsearchStores;
  redis: RedisStores;
}

/** The deployment's names: the listings alias and index, the Redis key prefix. */
export interface DeploymentStoreNames {
  listingsAlias: string;
  listingsIndex: string;
  redisPrefix: string;
}

export function storesFor(clients: Clients, names: DeploymentStoreNames): Stores {
  return {
    elasticsearch: new ElasticsearchStores(clients.elasticsearch, names.listingsAlias, names.listingsIndex),
    redis: new RedisStores(clients.redis, names.redisPrefix),
  };
}
