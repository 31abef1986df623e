/**
 * The announce module as the container wires it: announce service + status, the prober and its
 * worker (whose re-probes are the active health checks), and the staleness sweeper.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { Stores } from '../store/stores.js';
import { AnnounceService } from './announceService.js';
import { Prober } from './prober.js';
import type { ProbeStore } from '../store/redis/probeStore.js';
import { ProbeWorker } from './probeWorker.js';
import { StalenessWorker } from './stalenessWorker.js';
import { HealthSchedule } from './healthSchedule.js';
import { leaseTtlFor } from '../store/redis/lease.js';
import { systemClock, type Clock } from '../core/clock.js';

export interface Announcing {
  service: AnnounceService;
  store: ProbeStore;
  prober: Prober;
  probeWorker: ProbeWorker;
  staleness: StalenessWorker;
}

export interface AnnouncingDeps {
  stores: Stores;
  writer: CatalogWriter;
  reader: CatalogReader;
  /** Injectable clock (tests of re-probes and staleness). */
  now?: Clock;
}

export function buildAnnouncing(config: Config, logger: Logger, deps: AnnouncingDeps): Announcing {
  const settings = config.announce;
  const now = deps.now ?? systemClock;
  const store = deps.stores.redis.probes();
  const health = new HealthSchedule(settings, deps.stores.redis.healthChecks());
  const prober = new Prober(settings, store, deps.writer, logger, now, health);
  const probeWorker = new ProbeWorker(store, prober, logger, {
    concurrency: settings.probeConcurrency,
    leaseMs: settings.probeTimeoutMs + 30_000,
    now,
  });
  const service = new AnnounceService(settings, store, deps.reader, () => probeWorker.wake(), now);
  const staleness = new StalenessWorker(
    deps.stores.elasticsearch.staleListings(),
    deps.writer,
    store,
    logger,
    {
      staleAfterMs: settings.staleAfterMs,
      sweepIntervalMs: settings.staleSweepIntervalMs,
      now,
      lease: deps.stores.redis.lease('staleness-sweeper', leaseTtlFor(settings.staleSweepIntervalMs)),
    },
  );
  return { service, store, prober, probeWorker, staleness };
}
