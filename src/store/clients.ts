import type { ElasticsearchClient } from './elasticsearch/client.js';
import type { RedisClient } from './redis/client.js';

/**
 * The two backend connections of one service instance; only the composition root and src/store
 * hold them (eslint.config.js keeps every other folder from importing them).
 */
export interface Clients {
  elasticsearch: ElasticsearchClient;
  redis: RedisClient;
}
