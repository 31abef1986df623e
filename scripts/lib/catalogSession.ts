/**
 * What the catalog commands (import, export, demo, bench-ingest) share: the server's configuration
 * and clients, the listing index bootstrapped, the catalog module, and a way to wait until the
 * durable write queue is applied.
 */
import { buildCatalog, type Catalog } from '../../src/catalog/index.js';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createElasticsearchClient, type ElasticsearchClient } from '../../src/store/elasticsearch.js';
import { ensureListingIndex } from '../../src/store/listingIndex.js';
import { createRedisClient, type Redis } from '../../src/store/redis.js';
import type { QueueStats } from '../../src/store/writeStream.js';

export interface CatalogSession {
  config: Config;
  logger: Logger;
  elasticsearch: ElasticsearchClient;
  redis: Redis;
  catalog: Catalog;
  close(): Promise<void>;
}

export function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

export async function openCatalogSession(env: Record<string, string | undefined> = process.env): Promise<CatalogSession> {
  let config: Config;
  try {
    // Commands talk to people on stderr; the service's info logs would drown that.
    config = loadConfig({ LOG_LEVEL: 'warn', ...env });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 60_000 });
  const redis = createRedisClient(config.redisUrl);
  try {
    await ensureListingIndex(elasticsearch, config.listingsAlias, config.listingsIndex);
  } catch (err) {
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
    fail(`cannot prepare the listing index "${config.listingsAlias}" at ${config.elasticsearchUrl}: ${(err as Error).message}`, 1);
  }
  const catalog = buildCatalog(config, logger, { elasticsearch, redis });
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
