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
import { hotPathConnection } from '../store/hotPathConnection.js';

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
  const connection = hotPathConnection(deps.redis, (err) => logger.debug('facilitator redis connection error', { err: err.message }));
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
