/**
 * Probing as the container wires it: the probe calendar (Redis), the prober that fetches a
 * resource without payment through the SSRF guard (safeFetch.ts, addressPolicy.ts) and reads its
 * 402 (challenge.ts), and the worker that runs due probes. Re-probes of listed resources are the
 * active health checks (healthSchedule.ts). Announce, federation and the facilitator's traffic all
 * queue their candidates here; only a probe's answer writes an HTTP listing.
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { Stores } from '../store/stores.js';
import type { ProbeStore } from '../store/redis/probeStore.js';
import { systemClock, type Clock } from '../core/clock.js';
import { Prober } from './prober.js';
import { ProbeWorker } from './probeWorker.js';
import { HealthSchedule } from './healthSchedule.js';

export interface Probing {
  store: ProbeStore;
  prober: Prober;
  worker: ProbeWorker;
}

export interface ProbingDeps {
  stores: Stores;
  writer: CatalogWriter;
  /** Injectable clock (tests of re-probes and pacing). */
  now?: Clock;
}

export function buildProbing(config: Config, logger: Logger, deps: ProbingDeps): Probing {
  const settings = config.announce;
  const now = deps.now ?? systemClock;
  const store = deps.stores.redis.probes();
  const health = new HealthSchedule(settings, deps.stores.redis.healthChecks());
  const prober = new Prober(settings, store, deps.writer, logger, now, health, deps.stores.redis.optOuts());
  const worker = new ProbeWorker(store, prober, logger, {
    concurrency: settings.probeConcurrency,
    leaseMs: settings.probeTimeoutMs + 30_000,
    now,
  });
  return { store, prober, worker };
}
