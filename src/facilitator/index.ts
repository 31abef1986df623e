/**
 * The facilitator module as the container wires it: service, the signals flusher, and the
 * facilitator's gauges (sponsor balance) on the shared metrics registry.
 */
import type { Redis } from 'ioredis';
import { formatEther } from 'viem';
import type { Config } from '../config.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { BackgroundWorker } from '../core/worker.js';
import type { Logger } from '../logger.js';
import { registerSampledGauge, type Metrics } from '../metrics.js';
import { SignalCounters } from '../store/signalCounters.js';
import { SignalFlusher } from '../signals/flusher.js';
import { Ledger } from '../store/ledger.js';
import { FacilitatorService } from './service.js';
import { SettlementStore } from '../store/settlementStore.js';
import { TrafficCataloger } from './trafficCatalog.js';
import { TrafficAccepts } from '../store/trafficAccepts.js';

export interface Facilitator {
  service: FacilitatorService;
  ledger: Ledger;
  counters: SignalCounters;
  flusher: SignalFlusher;
  cataloger: TrafficCataloger;
  workers: BackgroundWorker[];
}

export function buildFacilitator(
  config: Config,
  logger: Logger,
  deps: { redis: Redis; writer: CatalogWriter; reader: CatalogReader; metrics: Metrics },
  clock: Clock = systemClock,
): Facilitator {
  const { writer, reader, metrics } = deps;
  const connection = hotPathConnection(deps.redis, logger);
  const redis = connection.redis;
  const ledger = new Ledger(redis, config.redisPrefix, config.sponsorInitialWei);
  const counters = new SignalCounters(redis, config.redisPrefix, clock);
  const cataloger = new TrafficCataloger(new TrafficAccepts(redis, config.redisPrefix), () => writer, reader, logger, config.trafficRefreshMs);
  const service = new FacilitatorService({
    config,
    ledger,
    settlements: new SettlementStore(redis, config.redisPrefix),
    counters,
    cataloger,
    metrics,
    logger,
    clock,
  });
  const flusher = new SignalFlusher(counters, () => writer, logger, config.signalsFlushMs);
  registerSampledGauge(
    metrics,
    { name: 'facilitator_sponsor_balance_eth', help: 'Fee sponsor balance per network, in the native currency unit (ETH, not wei)', labelNames: ['network'] },
    async () =>
      Promise.all(
        config.facilitatorNetworks.map(async (network) => ({
          labels: { network },
          value: Number(formatEther(await ledger.sponsorBalance(network))),
        })),
      ),
  );
  // The connection closes only after everything that uses it finished: the flusher's current pass
  // (it pops ids from the dirty set and puts them back on failure) and every traffic write started
  // so far. Otherwise stopping the workers in any order could quit it under them.
  const closer: BackgroundWorker = {
    name: connection.closer.name,
    start: () => undefined,
    stop: async () => {
      await flusher.stop();
      await cataloger.idle();
      await connection.closer.stop();
    },
  };
  return { service, ledger, counters, flusher, cataloger, workers: [flusher, closer] };
}

/**
 * The facilitator's own Redis connection with auto-pipelining: concurrent /verify and /settle
 * requests share one write per event-loop tick instead of one each (about 15% less CPU per request
 * in scripts/bench-facilitator.ts). Closed by the returned worker's stop(), like every other
 * resource the container's workers own; buildFacilitator wraps it so that its users stop first.
 */
function hotPathConnection(shared: Redis, logger: Logger): { redis: Redis; closer: BackgroundWorker } {
  const redis = shared.duplicate({ enableAutoPipelining: true });
  redis.on('error', (err: Error) => logger.debug('facilitator redis connection error', { err: err.message }));
  return {
    redis,
    closer: {
      name: 'facilitator-redis',
      start: () => undefined,
      stop: async () => {
        // quit() waits for the server's reply; a connection that is not up has nothing to flush.
        if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
        else redis.disconnect();
      },
    },
  };
}
