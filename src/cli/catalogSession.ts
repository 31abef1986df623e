/**
 * What the catalog commands (import, export, demo, bench-ingest) share: the server's configuration
 * and clients, the listing index bootstrapped, the catalog module, and a way to wait until the
 * durable write queue is applied.
 */
import { buildCatalog, type Catalog } from '../catalog/index.js';
import { changeRecorder, markFeedCompleteForNewIndex } from '../changes/index.js';
import type { Config } from '../config/index.js';
import { createLogger, type Logger } from '../logger.js';
import { createElasticsearchClient, type ElasticsearchClient } from '../store/elasticsearch/client.js';
import { ensureListingIndex } from '../store/elasticsearch/listingIndex.js';
import { createRedisClient, type RedisClient } from '../store/redis/client.js';
import type { QueueStats } from '../store/redis/writeStream.js';
import { fail, loadConfigOrFail } from './options.js';
import { storesFor } from '../store/stores.js';
import { RedisStores } from '../store/redis/redisStores.js';

export interface CatalogSession {
  config: Config;
  logger: Logger;
  elasticsearch: ElasticsearchClient;
  redis: RedisClient;
  catalog: Catalog;
  close(): Promise<void>;
}

export async function openCatalogSession(env: Record<string, string | undefined> = process.env): Promise<CatalogSession> {
  // Commands talk to people on stderr; the service's info logs would drown that.
  const config = loadConfigOrFail({ LOG_LEVEL: 'warn', ...env });
  const logger = createLogger(config.logLevel);
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 60_000 });
  const redis = createRedisClient(config.redisUrl);
  try {
    const bootstrap = await ensureListingIndex(elasticsearch, config.listingsAlias, config.listingsIndex, config.listingsLayout);
    if (bootstrap.created) await markFeedCompleteForNewIndex(new RedisStores(redis, config.redisPrefix));
  } catch (err) {
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
    fail(`cannot prepare the listing index "${config.listingsAlias}" at ${config.elasticsearchUrl}: ${(err as Error).message}`, 1);
  }
  // Writes this session applies reach the change feed and listing history like the server's.
  const catalog = buildCatalog(config, logger, storesFor({ elasticsearch, redis }, config), changeRecorder(new RedisStores(redis, config.redisPrefix)));
  return {
    config,
    logger,
    elasticsearch,
    redis,
    catalog,
    async close() {
      await catalog.worker.stop();
      await Promise.allSettled([elasticsearch.close(), redis.quit()]);
    },
  };
}

/**
 * The environment of a benchmark that writes to LISTINGS_ALIAS / LISTINGS_INDEX / REDIS_PREFIX (its
 * own defaults when unset), refusing the service's alias: the benchmark deletes what it writes to.
 */
export function benchmarkEnv(defaults: { alias: string; index: string; redisPrefix: string }): Record<string, string | undefined> {
  const env = {
    ...process.env,
    LISTINGS_ALIAS: process.env.LISTINGS_ALIAS ?? defaults.alias,
    LISTINGS_INDEX: process.env.LISTINGS_INDEX ?? defaults.index,
    REDIS_PREFIX: process.env.REDIS_PREFIX ?? defaults.redisPrefix,
  };
  if (env.LISTINGS_ALIAS === 'listings') fail('refusing to benchmark against the service alias "listings": set LISTINGS_ALIAS');
  return env;
}

/**
 * Runs an ingest consumer (next to any running server's, in the same consumer group) until the
 * write queue is empty, then stops it. Resolves with the final stats; throws after `timeoutMs`.
 */
export async function drainQueue(
  session: CatalogSession,
  options: { timeoutMs?: number; onProgress?: (stats: QueueStats) => void; pollMs?: number } = {},
): Promise<QueueStats> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  session.catalog.worker.start();
  try {
    for (;;) {
      const stats = await session.catalog.queue.stats();
      options.onProgress?.(stats);
      if (stats.depth === 0) return stats;
      if (Date.now() > deadline) throw new Error(`the write queue still holds ${stats.depth} entries (is Elasticsearch up?)`);
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 100));
    }
  } finally {
    await session.catalog.worker.stop();
  }
}
