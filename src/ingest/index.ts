/**
 * The announce module as the container wires it: announce service + status, the prober and its
 * worker (whose re-probes are the active health checks), and the staleness sweeper.
 */
import type { Client } from '@elastic/elasticsearch';
import type { RedisClient } from '../core/clients.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { ElasticsearchStaleListingFinder } from '../store/elasticsearch/staleListings.js';
import { AnnounceService } from './announceService.js';
import { Prober } from './prober.js';
import { ProbeStore } from '../store/redis/probeStore.js';
import { ProbeWorker } from './probeWorker.js';
import { StalenessWorker } from './stalenessWorker.js';
import { HealthSchedule } from './healthSchedule.js';
import { HealthChecks } from '../store/redis/healthChecks.js';
import { RedisLease, leaseTtlFor } from '../store/redis/lease.js';
import { redisKeys } from '../store/redis/redisKeys.js';
import { systemClock, type Clock } from '../core/clock.js';

export interface Announcing {
  service: AnnounceService;
  store: ProbeStore;
  prober: Prober;
  probeWorker: ProbeWorker;
  staleness: StalenessWorker;
}

export interface AnnouncingDeps {
  elasticsearch: Client;
  redis: RedisClient;
  writer: CatalogWriter;
  reader: CatalogReader;
  /** Injectable clock (tests of re-probes and staleness). */
  now?: Clock;
}

export function buildAnnouncing(config: Config, logger: Logger, deps: AnnouncingDeps): Announcing {
  const settings = config.announce;
  const now = deps.now ?? systemClock;
  const store = new ProbeStore(deps.redis, config.redisPrefix);
  const health = new HealthSchedule(settings, new HealthChecks(deps.redis, config.redisPrefix));
  const prober = new Prober(settings, store, deps.writer, logger, now, health);
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
    {
      staleAfterMs: settings.staleAfterMs,
      sweepIntervalMs: settings.staleSweepIntervalMs,
      now,
      lease: new RedisLease(deps.redis, redisKeys(config.redisPrefix).lease('staleness-sweeper'), leaseTtlFor(settings.staleSweepIntervalMs)),
    },
  );
  return { service, store, prober, probeWorker, staleness };
}
