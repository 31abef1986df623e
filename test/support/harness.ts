/**
 * Builds the real service (real Elasticsearch, real Redis, the dev chain) for integration tests,
 * with index names and a Redis key prefix unique to this test run so that runs never collide.
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
import { CHAIN_RPC_URL, DEV_FACILITATOR_KEY, requireDevChain } from './chainFunding.js';

export const RUN_ID = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
let counter = 0;

/** Index/alias/prefix names unique to one harness in this run. */
export function uniqueNames(label = 't'): { listingsAlias: string; listingsIndex: string; redisPrefix: string } {
  counter += 1;
  const base = `test-${RUN_ID}-${label}${counter}`;
  return { listingsAlias: `${base}-listings`, listingsIndex: `${base}-listings-v1`, redisPrefix: `test:${RUN_ID}:${label}${counter}:` };
}

/**
 * Every test's facilitator settles on the dev chain (issue 44) from the dev facilitator key, as a
 * deployment with a key does: a payment moves test USDC in a mined transaction. A test that needs
 * another facilitator passes its own FACILITATOR_PRIVATE_KEY (or '' for none). Also the environment
 * of a service process a test starts (server-process, redis-cluster-stop).
 */
export const ON_CHAIN: Record<string, string> = {
  FACILITATOR_KEY_FILE: '',
  FACILITATOR_PRIVATE_KEY: DEV_FACILITATOR_KEY,
  CHAIN_RPC_URL,
  // The default daily budgets are 1000 and 10,000 times SETTLEMENT_FEE_WEI (21,000 gas at 1 gwei),
  // while a real EIP-3009 settlement costs several times that in gas: a burst test of hundreds of
  // payments from one payer would run into them. The tests of the budgets set their own.
  SPONSOR_PAYER_BUDGET_WEI: String(10n ** 18n),
  SPONSOR_PAYEE_BUDGET_WEI: String(5n * 10n ** 18n),
};

export function testConfig(overrides: Record<string, string> = {}): Config {
  const names = uniqueNames();
  return loadConfig({
    ...process.env,
    ...ON_CHAIN,
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
let devChain: Promise<void> | undefined;

/** Once per run: the dev chain answers with its contracts, or every harness that settles there fails (never skips). */
function devChainReady(): Promise<void> {
  devChain ??= requireDevChain();
  return devChain;
}

/** Starts a full service (index bootstrapped, workers running) the way src/server.ts does. */
export async function startHarness(overrides: Record<string, string> = {}, options: { workers?: boolean } = {}): Promise<Harness> {
  const config = testConfig(overrides);
  if (config.chain.privateKey) await devChainReady();
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
