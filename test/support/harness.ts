/**
 * Builds the real service (real Elasticsearch, real Redis) for integration tests, with index names
 * and a Redis key prefix unique to this test run so that runs never collide.
 */
import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { buildContainer, type Container } from '../../src/container.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createElasticsearchClient, type ElasticsearchClient } from '../../src/store/elasticsearch/client.js';
import { ensureListingIndex } from '../../src/store/elasticsearch/listingIndex.js';
import { createRedisClient, type RedisClient } from '../../src/store/redis/client.js';
import { dropDeploymentData } from '../../src/store/deploymentData.js';

export const RUN_ID = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
let counter = 0;

/** Index/alias/prefix names unique to one harness in this run. */
export function uniqueNames(label = 't'): { listingsAlias: string; listingsIndex: string; redisPrefix: string } {
  counter += 1;
  const base = `test-${RUN_ID}-${label}${counter}`;
  return { listingsAlias: `${base}-listings`, listingsIndex: `${base}-listings-v1`, redisPrefix: `test:${RUN_ID}:${label}${counter}:` };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  const names = uniqueNames();
  return loadConfig({
    ...process.env,
    LISTINGS_ALIAS: names.listingsAlias,
    LISTINGS_INDEX: names.listingsIndex,
    REDIS_PREFIX: names.redisPrefix,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    RANKING_REFRESH_MS: '200',
    // Tests read right after they write; the read cache (up to 1 s stale by design) has its own
    // tests (test/read-cache.test.ts), which turn it on.
    READ_CACHE_MS: '0',
    ...overrides,
  });
}

export interface Harness {
  config: Config;
  logger: Logger;
  elasticsearch: ElasticsearchClient;
  redis: RedisClient;
  container: Container;
  app: Express;
  close(): Promise<void>;
}

const openHarnesses = new Set<Harness>();

/** Starts a full service (index bootstrapped, workers running) the way src/server.ts does. */
export async function startHarness(overrides: Record<string, string> = {}, options: { workers?: boolean } = {}): Promise<Harness> {
  const config = testConfig(overrides);
  const logger = createLogger(config.logLevel, { silent: config.logLevel === 'error' && !process.env.TEST_LOG_LEVEL });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const redis = createRedisClient(config.redisUrl);
  await ensureListingIndex(elasticsearch, config.listingsAlias, config.listingsIndex, config.listingsLayout);
  const container = buildContainer(config, logger, { elasticsearch, redis });
  if (options.workers !== false) for (const worker of container.workers) worker.start();
  const app = createApp({ config, logger, elasticsearch, redis, routers: container.routers });
  const harness: Harness = {
    config,
    logger,
    elasticsearch,
    redis,
    container,
    app,
    async close() {
      openHarnesses.delete(harness);
      // As src/server.ts: one at a time, last registered first (producers before the ingest worker).
      for (const worker of [...container.workers].reverse()) await worker.stop().catch(() => undefined);
      await dropDeploymentData(elasticsearch, redis, config);
      await Promise.allSettled([elasticsearch.close(), redis.quit()]);
    },
  };
  openHarnesses.add(harness);
  return harness;
}

/** Root hook: nothing a test run created outlives it, even when a test forgot to close. */
export const mochaHooks = {
  async afterAll(this: unknown) {
    await Promise.allSettled([...openHarnesses].map((h) => h.close()));
  },
};

export async function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
