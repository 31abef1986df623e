/**
 * The facilitator module as the container wires it: the service, the traffic cataloger and
 * crediting, the sponsorship policy, and the facilitator's gauges (sponsor balance and its floor,
 * the sponsor's outflow per payer and payee) on the shared metrics registry. It records
 * into the signals it is handed (src/signals) and uses the Redis adapters it is given (its own
 * hot-path connection, which the container opens and closes after its users).
 */
import { formatEther } from 'viem';
import type { Config } from '../config/index.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import { registerSampledGauge, type Metrics } from '../metrics.js';
import type { OutcomeRecorder } from '../outcomes/index.js';
import type { SignalRecorder } from '../signals/counters.js';
import { FacilitatorService } from './service.js';
import { TrafficCataloger } from './trafficCatalog.js';
import type { RedisStores } from '../store/redis/redisStores.js';
import { PayerLimit } from './payerLimit.js';
import { type ProbeScheduler } from './trafficCatalog.js';
import { TrafficCredit } from './trafficCredit.js';
import { SponsorshipPolicy } from './sponsorship.js';
import { registerSponsorOutflow } from './sponsorMetrics.js';
import { PENDING_CREDITS, PendingCreditResolver } from '../signals/pendingCredits.js';
import type { ChainAdapter } from '../store/evm/chainAdapter.js';
import { ChainRail } from './chainRail.js';
import { SettlementHistory, SETTLEMENT_RETENTION_DAYS, SETTLEMENTS_PER_PAYEE } from './settlementHistory.js';
import { Counter } from 'prom-client';

export interface Facilitator {
  service: FacilitatorService;
  /** The settlements sent on chain, for sellers and buyers to look up by hash (GET /settlements). */
  settlements: SettlementHistory;
  cataloger: TrafficCataloger;
}

export function buildFacilitator(
  config: Config,
  logger: Logger,
  deps: {
    /** The Redis adapters on the facilitator's hot-path connection. */
    redis: RedisStores;
    /** Where settlements and verifications count (src/signals). */
    signals: SignalRecorder;
    /** Where a credited settlement links the payer's recent searches to the listing (src/outcomes). */
    outcomes?: Pick<OutcomeRecorder, 'settled'>;
    writer: CatalogWriter;
    reader: CatalogReader;
    metrics: Metrics;
    /** The announce path a payment of an unlisted resource asks to probe it (AnnounceService). */
    probes: ProbeScheduler;
    /** The chain `exact` and `upto` settle on, when a facilitator key is configured (store/chainSettlement.ts). */
    chain?: ChainAdapter;
  },
  clock: Clock = systemClock,
): Facilitator {
  const { writer, reader, metrics, redis } = deps;
  const cataloger = new TrafficCataloger({ writer: () => writer, logger, refreshMs: config.trafficRefreshMs, probes: deps.probes });
  const pending = redis.pendingCredits(PENDING_CREDITS);
  const resolver = new PendingCreditResolver(pending, deps.signals, logger, clock);
  const traffic = new TrafficCredit({ reader, signals: deps.signals, pending, resolver, cataloger, logger, clock, ...(deps.outcomes ? { outcomes: deps.outcomes } : {}) });
  const sponsorLedger = redis.sponsorLedger();
  const declined = registerSponsorOutflow(metrics, sponsorLedger, clock);
  const chain = deps.chain ? new ChainRail(deps.chain, config.sponsorFloorWei, floorStops(metrics)) : undefined;
  if (chain) logger.info('exact and upto settle on chain', { networks: chain.networks(), facilitator: chain.address });
  else {
    logger.warn('no facilitator key (FACILITATOR_PRIVATE_KEY or FACILITATOR_KEY_FILE): no network is offered, /supported lists nothing and /verify and /settle refuse every network', {
      networks: config.facilitatorNetworks,
    });
  }
  const networks = chain?.networks() ?? [];
  // The sponsor is the facilitator's own account: its native balance on each network pays the gas.
  const sponsorBalance = (network: string) => (chain ? chain.sponsorBalance(network) : Promise.resolve(0n));
  const policy = new SponsorshipPolicy(config.sponsorship, sponsorLedger, sponsorBalance, clock);
  const sponsorship = {
    decide: async (payment: Parameters<SponsorshipPolicy['decide']>[0]) => {
      const verdict = await policy.decide(payment);
      if (!verdict.sponsored) declined(verdict.reason);
      return verdict;
    },
    record: (payment: Parameters<SponsorshipPolicy['record']>[0], circular: boolean) => policy.record(payment, circular),
    recordFee: (payment: Parameters<SponsorshipPolicy['recordFee']>[0]) => policy.recordFee(payment),
  };
  const settlements = new SettlementHistory(redis.settlementLog(SETTLEMENTS_PER_PAYEE, SETTLEMENT_RETENTION_DAYS * 86_400), logger, clock);
  const service = new FacilitatorService({
    config,
    history: settlements,
    ...(chain ? { chain } : {}),
    settlements: redis.settlements(config.settlePendingWaitMs),
    payerLimit: new PayerLimit(config.rateLimits.facilitatorPayer ? redis.payerPayments() : undefined, config.rateLimits.facilitatorPayer),
    traffic,
    sponsorship,
    metrics,
    logger,
    clock,
  });
  registerSponsorGauges(config, networks, sponsorBalance, metrics);
  return { service, settlements, cataloger };
}

/**
 * The sponsor's balance in ETH per offered network (the facilitator account's native balance, read
 * from the chain at each scrape), the configured floor, and a 0/1 flag when the balance is below it
 * (alert on `facilitator_sponsor_below_floor == 1`: settlements stop with sponsor_below_floor
 * before a fee would cross it).
 */
function registerSponsorGauges(config: Config, networks: readonly string[], sponsorBalance: (network: string) => Promise<bigint>, metrics: Metrics): void {
  const sample = (value: (balance: bigint) => number) => async () =>
    Promise.all(
      networks.map(async (network) => ({ labels: { network }, value: value(await sponsorBalance(network)) })),
    );
  registerSampledGauge(
    metrics,
    { name: 'facilitator_sponsor_balance_eth', help: 'Fee sponsor balance per network, in the native currency unit (ETH, not wei)', labelNames: ['network'] },
    sample((balance) => Number(formatEther(balance))),
  );
  registerSampledGauge(
    metrics,
    { name: 'facilitator_sponsor_below_floor', help: 'Fee sponsor balance is below SPONSOR_FLOOR_WEI (1) or not (0): fund the facilitator account (on the dev chain: npm run faucet -- sponsor)', labelNames: ['network'] },
    sample((balance) => (balance < config.sponsorFloorWei ? 1 : 0)),
  );
  registerSampledGauge(
    metrics,
    { name: 'facilitator_sponsor_floor_eth', help: 'The sponsor balance floor (SPONSOR_FLOOR_WEI), in ETH' },
    async () => [{ value: Number(formatEther(config.sponsorFloorWei)) }],
  );
}

/** Counts the settlements and verifications the sponsor floor stopped (an alert beside the gauge). */
function floorStops(metrics: Metrics): (network: string) => void {
  const stopped = new Counter({
    name: 'facilitator_sponsor_floor_stops_total',
    help: 'Payments refused with sponsor_below_floor: paying their gas would take the facilitator account below SPONSOR_FLOOR_WEI',
    labelNames: ['network'],
    registers: [metrics.registry],
  });
  return (network) => stopped.inc({ network });
}
