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
import { PENDING_CREDITS, PendingCreditResolver } from './pendingCredits.js';

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

/**
 * Credits settlements that waited for the probe of the resource they named, as catalog writes are
 * applied (an AppliedWritesObserver). On the deployment's main Redis connection: it runs in the
 * catalog's write consumer, which stops after the facilitator's own connection is closed.
 */
export function buildPendingCredits(
  config: Pick<Config, 'signalsPayerDailyCap'>,
  logger: Logger,
  redis: RedisStores,
  clock: Clock = systemClock,
): PendingCreditResolver {
  return new PendingCreditResolver(redis.pendingCredits(PENDING_CREDITS), new SignalCounters(redis.signalStore(), clock, config.signalsPayerDailyCap), logger, clock);
}
