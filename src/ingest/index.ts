/**
 * The announce module as the container wires it: announce service + status, the prober and its
 * worker, the staleness sweeper, and the HTTP router.
 */
import type { Client } from '@elastic/elasticsearch';
import type { Redis } from 'ioredis';
import type { Router } from 'express';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { ElasticsearchStaleListingFinder } from '../catalog/staleListings.js';
import { announceRoutes } from '../http/routes/announce.js';
import { rateLimit } from '../http/rateLimit.js';
import { AnnounceService } from './announceService.js';
import { Prober } from './prober.js';
import { ProbeStore } from './probeStore.js';
import { ProbeWorker } from './probeWorker.js';
import { StalenessWorker } from './stalenessWorker.js';

export interface Announcing {
  service: AnnounceService;
  store: ProbeStore;
  prober: Prober;
  probeWorker: ProbeWorker;
  staleness: StalenessWorker;
  router: Router;
}

export interface AnnouncingDeps {
  elasticsearch: Client;
  redis: Redis;
  writer: CatalogWriter;
  reader: CatalogReader;
  /** Injectable clock (tests of re-probes and staleness). */
  now?: () => number;
}

export function buildAnnouncing(config: Config, logger: Logger, deps: AnnouncingDeps): Announcing {
  const settings = config.announce;
  const now = deps.now ?? Date.now;
  const store = new ProbeStore(deps.redis, config.redisPrefix);
  const prober = new Prober(settings, store, deps.writer, logger, now);
  const probeWorker = new ProbeWorker(store, prober, logger, {
    concurrency: settings.probeConcurrency,
    leaseMs: settings.probeTimeoutMs + 30_000,
    now,
  });
  const service = new AnnounceService(settings, store, deps.reader, () => probeWorker.wake(), now);
  const staleness = new StalenessWorker(
    new ElasticsearchStaleListingFinder(deps.elasticsearch, config.listingsAlias),
    deps.writer,
    store,
    logger,
    { staleAfterMs: settings.staleAfterMs, sweepIntervalMs: settings.staleSweepIntervalMs, now },
  );
  const announceLimit = config.rateLimits.announce
    ? rateLimit({ redis: deps.redis, prefix: config.redisPrefix, name: 'announce', rule: config.rateLimits.announce, logger })
    : undefined;
  const router = announceRoutes({ announce: service, ...(announceLimit ? { announceLimit } : {}) });
  return { service, store, prober, probeWorker, staleness, router };
}
