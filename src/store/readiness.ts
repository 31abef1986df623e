/**
 * What GET /readyz asks of the backends (http/routes/health.ts): Elasticsearch and Redis answer,
 * and the listings alias exists (it disappears with its index; IndexKeeper puts both back). It also
 * says whether Redis keeps acknowledged writes through a crash (store/redis/persistence.ts): a
 * warning, not a reason to refuse traffic. And how full Redis is (store/redis/memory.ts): near its
 * maxmemory, without one, or with a policy that evicts, also a warning.
 */
import { elasticsearchAnswers, type ElasticsearchClient } from './elasticsearch/client.js';
import { redisAnswers, type RedisClient } from './redis/client.js';
import { redisPersistence } from './redis/persistence.js';
import { redisMemory, type RedisMemory } from './redis/memory.js';

export interface Readiness {
  elasticsearch: boolean;
  redis: boolean;
  /** Asked only when Elasticsearch answers (false otherwise). */
  listingIndex: boolean;
  /** Asked only when Redis answers. */
  redisPersistence?: { durable: boolean; summary: string };
  /** Asked only when Redis answers: how full it is (a warning, not a reason to refuse reads). */
  redisMemory?: RedisMemory;
}

export type ReadinessProbe = () => Promise<Readiness>;

export function readinessProbe(elasticsearch: ElasticsearchClient, redis: RedisClient, listingsAlias: string): ReadinessProbe {
  return async () => {
    const [es, redisUp] = await Promise.all([elasticsearchAnswers(elasticsearch), redisAnswers(redis)]);
    const [listingIndex, persistence, memory] = await Promise.all([
      es && listingIndexExists(elasticsearch, listingsAlias),
      redisUp ? redisPersistence(redis).catch(() => undefined) : undefined,
      redisUp ? redisMemory(redis).catch(() => undefined) : undefined,
    ]);
    const redisPersistenceCheck = persistence && { durable: persistence.durable, summary: persistence.summary };
    return {
      elasticsearch: es,
      redis: redisUp,
      listingIndex,
      ...(redisPersistenceCheck && { redisPersistence: redisPersistenceCheck }),
      ...(memory && { redisMemory: memory }),
    };
  };
}

async function listingIndexExists(client: ElasticsearchClient, alias: string): Promise<boolean> {
  try {
    return await client.indices.existsAlias({ name: alias }, { requestTimeout: 2000, maxRetries: 0 });
  } catch {
    return false;
  }
}
