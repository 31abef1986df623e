/** Process entry point: validated config, real clients, index bootstrap, HTTP server, graceful stop. */
import type { Server } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config/index.js';
import { buildContainer } from './container.js';
import { drainServer, stopBudget, trackRequestsInFlight } from './http/serverDrain.js';
import { createLogger } from './logger.js';
import { createElasticsearchClient } from './store/elasticsearch/client.js';
import { reconcileIndexLayout } from './store/elasticsearch/indexLayout.js';
import { ensureListingIndex, IncompatibleIndexError } from './store/elasticsearch/listingIndex.js';
import { searchesSegmentsInParallel } from './store/elasticsearch/segmentSearch.js';
import { createRedisClient } from './store/redis/client.js';
import { redisPersistence } from './store/redis/persistence.js';
import { redisMemory } from './store/redis/memory.js';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** Beyond the catalog consumer's wait: the other workers' passes in flight and closing the clients. */
const WORKER_STOP_MARGIN_MS = 1000;

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const redis = createRedisClient(config.redisUrl);

  try {
    const index = await ensureListingIndex(elasticsearch, config.listingsAlias, config.listingsIndex, config.listingsLayout);
    const layout = await reconcileIndexLayout(elasticsearch, index.index, config.listingsLayout);
    logger.info('listing index ready', { alias: config.listingsAlias, ...index, ...layout });
    if (layout.shardsWanted !== undefined) {
      logger.warn('the listing index has another shard count than LISTINGS_SHARDS; `npm run reindex` applies it', layout);
    }
  } catch (err) {
    if (err instanceof IncompatibleIndexError) {
      process.stderr.write(`refusing to start: ${err.message}\n`);
    } else {
      process.stderr.write(
        `refusing to start: cannot prepare the listing index at ${config.elasticsearchUrl}: ${(err as Error).message}\n` +
          'Is Elasticsearch running? Start it with: npm run services -- start\n',
      );
    }
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
    process.exit(1);
  }

  // The write path is only as durable as this Redis: say so once at start (GET /readyz says it too).
  void redisMemory(redis)
    .then((memory) => {
      const figures = { usedBytes: memory.usedBytes, maxBytes: memory.maxBytes, policy: memory.policy };
      if (memory.state === 'ok') logger.info('redis memory: bounded', figures);
      else logger.warn(`redis memory: ${memory.state === 'no_limit' ? 'NO maxmemory (untrusted input can grow it until it is killed)' : memory.state === 'evicts' ? 'an evicting policy (nonces and tokens may be dropped; use noeviction)' : 'near maxmemory'}`, figures);
    })
    .catch((err: Error) => logger.warn('redis memory: could not ask Redis', { error: err.message }));
  void redisPersistence(redis)
    .then((persistence) => {
      if (persistence.durable) logger.info('redis persistence: durable', { summary: persistence.summary });
      else logger.warn('redis persistence: NOT durable', { summary: persistence.summary });
    })
    .catch((err: Error) => logger.warn('redis persistence: could not ask Redis how it keeps writes', { error: err.message }));
  // Ranked search pages are only stable when kNN returns the same neighbours every time.
  void searchesSegmentsInParallel(elasticsearch)
    .then((parallel) => {
      if (parallel) {
        logger.warn('elasticsearch searches segments in parallel: ranked search pages may repeat listings on large catalogs; set search.query_phase_parallel_collection_enabled: false');
      }
    })
    .catch((err: Error) => logger.warn('elasticsearch: could not read search.query_phase_parallel_collection_enabled', { error: err.message }));
  const container = buildContainer(config, logger, { elasticsearch, redis });
  const app = createApp({ config, logger, elasticsearch, redis, routers: container.routers });
  for (const worker of container.workers) worker.start();

  const server: Server = app.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info('listening', { url: `http://${config.host}:${port}` });
    process.stdout.write(`discovery service listening on http://${config.host}:${port}\n`);
  });
  server.keepAliveTimeout = 65_000;
  const requestsInFlight = trackRequestsInFlight(server);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    // The whole stop fits in SHUTDOWN_GRACE_MS: requests in flight get most of it, the workers and
    // clients the rest (a test:cluster gateway once took 10.3 s against its 10 s grace, the HTTP
    // drain having waited out the grace before the workers even started).
    const budget = stopBudget(config.shutdownGraceMs, config.catalogIngest.stopWaitMs + WORKER_STOP_MARGIN_MS);
    const pending = new Set<string>();
    const deadline = setTimeout(() => {
      logger.warn('stop did not finish within the grace period; exiting', { pending: [...pending], graceMs: config.shutdownGraceMs });
      process.exit(1);
    }, budget.deadlineMs);
    const step = async (name: string, run: () => Promise<unknown>) => {
      pending.add(name);
      const started = performance.now();
      logger.debug('stop step started', { step: name });
      await run();
      pending.delete(name);
      logger.debug('stop step done', { step: name, ms: Math.round(performance.now() - started) });
    };
    await step('HTTP requests in flight', () => drainServer(server, { cutAfterMs: budget.httpCutAfterMs, logger, inFlight: requestsInFlight }));
    // In the waves of container.stopOrder: producers (signal flusher, traffic cataloger, probes,
    // ...) side by side, then the catalog ingest consumer, then the clients. The facilitator's Redis
    // connection closes only after its flusher pass and traffic writes completed (its closer waits
    // for them), whatever the order.
    // A stop that never ends (a Redis Cluster client waiting on a node that died, a pass stuck on
    // an unanswered call) must not keep the process from exiting: what a worker had not finished
    // is still in the durable stream or the dirty set and is taken up by another instance.
    for (const wave of container.stopOrder) {
      await Promise.all(
        wave.map((worker) =>
          step(worker.name, () =>
            worker.stop().catch((err: unknown) => logger.warn('worker stop failed', { worker: worker.name, err: (err as Error).message })),
          ),
        ),
      );
    }
    await Promise.all([
      step('closing the Elasticsearch client', () => elasticsearch.close().catch(() => undefined)),
      step('closing the Redis client', () => redis.quit().catch(() => undefined)),
    ]);
    clearTimeout(deadline);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`fatal: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
