/**
 * Composition root: turns configuration and clients into the services, their HTTP routers and the
 * background workers. The server and the integration tests both build the service through here.
 */
import type { Router } from 'express';
import type { Client } from '@elastic/elasticsearch';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { buildCatalog, type CatalogQueue } from './catalog/index.js';
import type { CatalogReader } from './catalog/reader.js';
import type { CatalogWriter } from './catalog/writer.js';
import { discoveryRoutes } from './http/routes/discovery.js';
import { buildCatalogSearch, type CatalogReadSide } from './search/index.js';
import { buildPublishing, type Publishing } from './publish/index.js';
import { buildAnnouncing, type Announcing } from './ingest/index.js';
import { edgeRateLimits } from './http/rateLimit.js';
import { registerAnnounceMetrics } from './ingest/metrics.js';
import { createMetrics, registerQueueGauges, type Metrics } from './metrics.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { buildFacilitator, type Facilitator } from './facilitator/index.js';
import { bazaarRoutes } from './http/routes/bazaar.js';
import { BazaarDiscovery } from './x402/bazaarDiscovery.js';
import { discoveryTools } from './mcp/discoveryTools.js';
import { mcpRoutes } from './http/routes/mcp.js';
import { openApiRoutes } from './http/routes/openapi.js';
import { webRoutes } from './web/routes.js';

export interface Clients {
  elasticsearch: Client;
  redis: Redis;
}

/** A loop that runs beside the HTTP server (ingest consumer, signal flusher, re-prober, ...). */
export interface BackgroundWorker {
  readonly name: string;
  start(): void;
  /** Resolves once the current iteration finished; no new work starts after it is called. */
  stop(): Promise<void>;
}

export interface Container {
  routers: Router[];
  workers: BackgroundWorker[];
  /** The catalog write path every producer uses, the by-id reader and the write queue's stats. */
  catalog: { writer: CatalogWriter; reader: CatalogReader; queue: CatalogQueue };
  /** Catalog reads: the search service and its ranking-tunables cache. */
  search: CatalogReadSide;
  /** Seller tokens and POST/DELETE /discovery/publish. */
  publishing: Publishing;
  /** POST /discovery/announce, probes, re-probes, staleness, status and GET /discovery/resources/{id}. */
  announcing: Announcing;
  /** Prometheus registry (GET /metrics); modules register their own metrics on `metrics.registry`. */
  metrics: Metrics;
  /** /supported, /verify, /settle on the test ledger, and the listing signals they feed. */
  facilitator: Facilitator;
}

export function buildContainer(config: Config, logger: Logger, clients: Clients): Container {
  const catalog = buildCatalog(config, logger, clients);
  const search = buildCatalogSearch(config, logger, clients);
  const publishing = buildPublishing(config, logger, { redis: clients.redis, writer: catalog.writer, reader: catalog.reader });
  const announcing = buildAnnouncing(config, logger, { ...clients, writer: catalog.writer, reader: catalog.reader });
  const metrics = createMetrics();
  registerQueueGauges(metrics, () => catalog.queue.stats());
  registerAnnounceMetrics(metrics, announcing);
  const facilitator = buildFacilitator(config, logger, {
    redis: clients.redis,
    writer: catalog.writer,
    reader: catalog.reader,
    metrics,
    probes: announcing.service,
    boundHosts: publishing.boundHosts,
  });
  // Rate limits first: they guard other modules' routes (reads, publish) mounted after them.
  const rateLimits = edgeRateLimits({ redis: clients.redis, prefix: config.redisPrefix, rules: config.rateLimits, logger });
  // MCP discovery answers with the same search service and listing lookup as the HTTP reads.
  const mcp = mcpRoutes(discoveryTools({ search: search.search, listings: announcing.service }));
  return {
    // The metrics router goes first: its middleware times every feature route after it.
    routers: [
      metricsRoutes(metrics),
      rateLimits,
      discoveryRoutes(search.search),
      publishing.router,
      announcing.router,
      facilitator.router,
      // The x402-compatible surface: Bazaar discovery over the same search, the same facilitator.
      bazaarRoutes({ discovery: new BazaarDiscovery(search.search), facilitator: facilitator.router }),
      mcp,
      openApiRoutes(),
      webRoutes(),
    ],
    workers: [catalog.worker, search.ranking, announcing.probeWorker, announcing.staleness, ...facilitator.workers],
    catalog: { writer: catalog.writer, reader: catalog.reader, queue: catalog.queue },
    search,
    publishing,
    announcing,
    metrics,
    facilitator,
  };
}
