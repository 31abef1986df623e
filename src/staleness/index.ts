/**
 * Staleness as the container wires it: the sweeper that removes listings nobody has seen (no 402
 * report, probe, republish or settlement) for STALE_AFTER_DAYS, one gateway at a time (a lease).
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { Stores } from '../store/stores.js';
import { leaseTtlFor } from '../store/redis/lease.js';
import { systemClock, type Clock } from '../core/clock.js';
import { StalenessWorker } from './stalenessWorker.js';

export function buildStaleness(config: Config, logger: Logger, deps: { stores: Stores; writer: CatalogWriter; now?: Clock }): StalenessWorker {
  const settings = config.announce;
  return new StalenessWorker(deps.stores.elasticsearch.staleListings(), deps.writer, deps.stores.redis.probes(), logger, {
    staleAfterMs: settings.staleAfterMs,
    sweepIntervalMs: settings.staleSweepIntervalMs,
    now: deps.now ?? systemClock,
    lease: deps.stores.redis.lease('staleness-sweeper', leaseTtlFor(settings.staleSweepIntervalMs)),
  });
}
