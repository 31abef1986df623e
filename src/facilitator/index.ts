/**
 * The facilitator module as the container wires it: service, the signals flusher, and the facilitator's gauges (sponsor balance and its floor) on the shared
 * metrics registry.
 */
import { formatEther } from 'viem';
import type { Config } from '../config.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { BackgroundWorker } from '../core/worker.js';
import { ProbeAllowList } from '../announce/addressPolicy.js';
import type { Logger } from '../logger.js';
import { registerSampledGauge, type Metrics } from '../metrics.js';
import type { SignalCounters } from '../store/redis/signalCounters.js';
import { SignalFlusher } from '../signals/flusher.js';
import type { Ledger } from '../store/redis/ledger.js';
import { FacilitatorService } from './service.js';
import { TrafficCataloger } from './trafficCatalog.js';
import type { Stores } from '../store/stores.js';
import { PayerLimit } from './payerLimit.js';
import { type ProbeScheduler } from './trafficCatalog.js';
import { TrafficGate, type HostBindings } from './trafficGate.js';

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
  deps: {
    stores: Stores;
    writer: CatalogWriter;
    reader: CatalogReader;
    metrics: Metrics;
    /** The announce path a valid /verify asks to probe its resource (AnnounceService). */
    probes: ProbeScheduler;
    /** Seller-token hosts, where traffic never lists an MCP tool (BoundHosts). */
    boundHosts: HostBindings;
  },
  clock: Clock = systemClock,
): Facilitator {
  const { writer, reader, metrics } = deps;
  const connection = deps.stores.redis.hotPath((err) => logger.debug('facilitator redis connection error', { err: err.message }));
  const redis = connection.stores;
  const ledger = redis.ledger(config.sponsorInitialWei);
  const counters = redis.signalCounters(clock, config.signalsPayerDailyCap);
  const gate = new TrafficGate(new ProbeAllowList(config.announce.probeAllow), config.announce.probeTimeoutMs, deps.boundHosts);
  const cataloger = new TrafficCataloger({
    accepts: redis.trafficAccepts(),
    writer: () => writer,
    reader,
    logger,
    refreshMs: config.trafficRefreshMs,
    gate,
    probes: deps.probes,
    reflushSignals: (ids) => counters.markDirty(ids),
  });
  const service = new FacilitatorService({
    config,
    ledger,
    settlements: redis.settlements(config.settlePendingWaitMs),
    payerLimit: new PayerLimit(config.rateLimits.facilitatorPayer ? redis.payerPayments() : undefined, config.rateLimits.facilitatorPayer),
    counters,
    cataloger,
    metrics,
    logger,
    clock,
  });
  const flusher = new SignalFlusher(counters, () => writer, logger, config.signalsFlushMs, redis.healthChecks(), clock);
  registerSponsorGauges(config, ledger, metrics);
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
 * The sponsor's balance in ETH, the configured floor, and a 0/1 flag when the balance is below it
 * (alert on `facilitator_sponsor_below_floor == 1`: settlements stop with sponsor_insufficient_funds
 * once it cannot pay one more fee).
 */
function registerSponsorGauges(config: Config, ledger: Ledger, metrics: Metrics): void {
  const sample = (value: (balance: bigint) => number) => async () =>
    Promise.all(
      config.facilitatorNetworks.map(async (network) => ({ labels: { network }, value: value(await ledger.sponsorBalance(network)) })),
    );
  registerSampledGauge(
    metrics,
    { name: 'facilitator_sponsor_balance_eth', help: 'Fee sponsor balance per network, in the native currency unit (ETH, not wei)', labelNames: ['network'] },
    sample((balance) => Number(formatEther(balance))),
  );
  registerSampledGauge(
    metrics,
    { name: 'facilitator_sponsor_below_floor', help: 'Fee sponsor balance is below SPONSOR_FLOOR_WEI (1) or not (0): fund it with npm run faucet -- sponsor', labelNames: ['network'] },
    sample((balance) => (balance < config.sponsorFloorWei ? 1 : 0)),
  );
  registerSampledGauge(
    metrics,
    { name: 'facilitator_sponsor_floor_eth', help: 'The sponsor balance floor (SPONSOR_FLOOR_WEI), in ETH' },
    async () => [{ value: Number(formatEther(config.sponsorFloorWei)) }],
  );
}
