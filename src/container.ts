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
import { buildAnnouncing, type Announcing } from './ingest/index.js';
import { edgeRateLimits } from './http/rateLimit.js';

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
  /** POST /discovery/announce, probes, re-probes, staleness, status and GET /discovery/resources/{id}. */
  announcing: Announcing;
}

export function buildContainer(config: Config, logger: Logger, clients: Clients): Container {
  const catalog = buildCatalog(config, logger, clients);
  const search = buildCatalogSearch(config, logger, clients);
  const announcing = buildAnnouncing(config, logger, { ...clients, writer: catalog.writer, reader: catalog.reader });
  // Rate limits first: they guard other modules' routes (reads, publish) mounted after them.
  const rateLimits = edgeRateLimits({ redis: clients.redis, prefix: config.redisPrefix, rules: config.rateLimits, logger });
  return {
    routers: [rateLimits, discoveryRoutes(search.search), announcing.router],
    workers: [catalog.worker, search.ranking, announcing.probeWorker, announcing.staleness],
    catalog: { writer: catalog.writer, reader: catalog.reader, queue: catalog.queue },
    search,
    announcing,
  };
}
