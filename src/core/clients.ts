import type { Client } from '@elastic/elasticsearch';
import type { Cluster, Redis } from 'ioredis';

/**
 * A Redis connection: one server (the default) or a Redis Cluster through ioredis' own Cluster
 * client (REDIS_CLUSTER_NODES or a redis+cluster:// URL). Both answer the same commands; the store
 * keeps every multi-key command in one hash slot (store/redis/redisKeys.ts) so either works.
 */
export type RedisClient = Redis | Cluster;

/** The two backend connections of one service instance; only the composition root and src/store hold them. */
export interface Clients {
  elasticsearch: Client;
  redis: RedisClient;
}
