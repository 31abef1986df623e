/**
 * The facilitator module as the container wires it: service, routes (with the per-client limits),
 * the signals flusher, and the facilitator's gauges (sponsor balance and its floor) on the shared
 * metrics registry.
 */
import type { Router } from 'express';
import type { Redis } from 'ioredis';
import { formatEther } from 'viem';
import type { Config } from '../config.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { systemClock, type Clock } from '../clock.js';
import type { BackgroundWorker } from '../container.js';
import { facilitatorRoutes } from '../http/routes/facilitator.js';
import { rateLimit } from '../http/rateLimit.js';
import { ProbeAllowList } from '../ingest/addressPolicy.js';
import type { Logger } from '../logger.js';
import { registerSampledGauge, type Metrics } from '../metrics.js';
import { SignalCounters } from '../signals/counters.js';
import { SignalFlusher } from '../signals/flusher.js';
import { Ledger } from './ledger.js';
import { PayerLimit } from './payerLimit.js';
import { FacilitatorService } from './service.js';
import { SettlementStore } from './settlementStore.js';
import { TrafficCataloger, type ProbeScheduler } from './trafficCatalog.js';
import { TrafficGate, type HostBindings } from './trafficGate.js';

export interface Facilitator {
  service: FacilitatorService;
  ledger: Ledger;
  counters: SignalCounters;
  flusher: SignalFlusher;
  cataloger: TrafficCataloger;
  router: Router;
  workers: BackgroundWorker[];
}

export function buildFacilitator(
  config: Config,
  logger: Logger,
  deps: {
    redis: Redis;
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
  const connection = hotPathConnection(deps.redis, logger);
  const redis = connection.redis;
  const ledger = new Ledger(redis, config.redisPrefix, config.sponsorInitialWei);
  const counters = new SignalCounters(redis, config.redisPrefix, clock, config.signalsPayerDailyCap);
  const gate = new TrafficGate(new ProbeAllowList(config.announce.probeAllow), config.announce.probeTimeoutMs, deps.boundHosts);
  const cataloger = new TrafficCataloger({
    redis,
    prefix: config.redisPrefix,
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
    settlements: new SettlementStore(redis, config.redisPrefix),
    payerLimit: new PayerLimit(redis, config.redisPrefix, config.rateLimits.facilitatorPayer),
    counters,
    cataloger,
    metrics,
    logger,
    clock,
  });
  const flusher = new SignalFlusher(counters, () => writer, logger, config.signalsFlushMs);
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
  // Per client address, each route its own budget; the per-payer budget is counted in the service.
  const perClient = config.rateLimits.facilitator;
  const limit = (name: string) => (perClient ? rateLimit({ redis: deps.redis, prefix: config.redisPrefix, name, rule: perClient, logger }) : undefined);
  const router = facilitatorRoutes(service, { verify: limit('verify'), settle: limit('settle') });
  return { service, ledger, counters, flusher, cataloger, router, workers: [flusher, closer] };
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
