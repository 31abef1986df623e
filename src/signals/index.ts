/**
 * The signals module as the container wires it: the counters the facilitator records into (as a
 * SignalRecorder), the reader of a listing's whole signals block, and the flusher that writes
 * changed blocks into the catalog. It uses the Redis adapters it is given (the facilitator's
 * hot-path connection, so that recording rides the same auto-pipelined writes as the payment).
 */
import type { Config } from '../config/index.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { BackgroundWorker } from '../core/worker.js';
import type { Logger } from '../logger.js';
import type { RedisStores } from '../store/redis/redisStores.js';
import { SignalCounters, type SignalRecorder } from './counters.js';
import { SignalFlusher } from './flusher.js';
import { ListingSignals } from './listingSignals.js';

export interface SignalTracking {
  /** What the facilitator records settlements and verifications into. */
  recorder: SignalRecorder;
  counters: SignalCounters;
  /** A listing's whole `signals` block (counters and health) as of now. */
  listingSignals: ListingSignals;
  flusher: SignalFlusher;
  workers: BackgroundWorker[];
}

export function buildSignals(
  config: Pick<Config, 'signalsPayerDailyCap' | 'signalsFlushMs'>,
  logger: Logger,
  deps: { redis: RedisStores; writer: CatalogWriter },
  clock: Clock = systemClock,
): SignalTracking {
  const counters = new SignalCounters(deps.redis.signalStore(), clock, config.signalsPayerDailyCap);
  const listingSignals = new ListingSignals(counters, deps.redis.healthChecks(), clock);
  const flusher = new SignalFlusher(counters, listingSignals, () => deps.writer, logger, config.signalsFlushMs);
  return { recorder: counters, counters, listingSignals, flusher, workers: [flusher] };
}
