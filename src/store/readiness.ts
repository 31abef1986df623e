/**
 * What GET /readyz asks of the backends (http/routes/health.ts): Elasticsearch and Redis answer,
 * and the listings alias exists (it disappears with its index; IndexKeeper puts both back).
 */
import { elasticsearchAnswers, type ElasticsearchClient } from './elasticsearch/client.js';
import { redisAnswers, type RedisClient } from './redis/client.js';

export interface Readiness {
  elasticsearch: boolean;
  redis: boolean;
  /** Asked only when Elasticsearch answers (false otherwise). */
  listingIndex: boolean;
}

export type ReadinessProbe = () => Promise<Readiness>;

export function readinessProbe(elasticsearch: ElasticsearchClient, redis: RedisClient, listingsAlias: string): ReadinessProbe {
  return async () => {
    const [es, redisUp] = await Promise.all([elasticsearchAnswers(elasticsearch), redisAnswers(redis)]);
    const listingIndex = es && (await listingIndexExists(elasticsearch, listingsAlias));
    return { elasticsearch: es, redis: redisUp, listingIndex };
  };
}

async function listingIndexExists(client: ElasticsearchClient, alias: string): Promise<boolean> {
  try {
    return await client.indices.existsAlias({ name: alias }, { requestTimeout: 2000, maxRetries: 0 });
  } catch {
    return false;
  }
}
