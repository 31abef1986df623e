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
import type { Ledger } from '../store/redis/ledger.js';
import { FacilitatorService } from './service.js';
import { TrafficCataloger } from './trafficCatalog.js';
import type { RedisStores } from '../store/redis/redisStores.js';
import { PayerLimit } from './payerLimit.js';
import { type ProbeScheduler } from './trafficCatalog.js';
import { TrafficCredit } from './trafficCredit.js';
import { SponsorshipPolicy } from './sponsorship.js';
import { registerSponsorOutflow } from './sponsorMetrics.js';
import { PENDING_CREDITS, PendingCreditResolver } from '../signals/pendingCredits.js';
import type { ExactChain } from '../store/evm/exactChain.js';
import { ChainRail } from './chainRail.js';
import { SettlementHistory, SETTLEMENT_RETENTION_DAYS, SETTLEMENTS_PER_PAYEE } from './settlementHistory.js';
import { Counter } from 'prom-client';

export interface Facilitator {
  service: FacilitatorService;
  /** The settlements sent on chain, for sellers and buyers to look up by hash (GET /settlements). */
  settlements: SettlementHistory;
  ledger: Ledger;
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
    /** The chain `exact` settles on, when a facilitator key is configured (store/chainSettlement.ts). */
    chain?: ExactChain;
  },
  clock: Clock = systemClock,
): Facilitator {
  const { writer, reader, metrics, redis } = deps;
  const ledger = redis.ledger(config.sponsorInitialWei);
  const cataloger = new TrafficCataloger({ writer: () => writer, logger, refreshMs: config.trafficRefreshMs, probes: deps.probes });
  const pending = redis.pendingCredits(PENDING_CREDITS);
  const resolver = new PendingCreditResolver(pending, deps.signals, logger, clock);
  const traffic = new TrafficCredit({ reader, signals: deps.signals, pending, resolver, cataloger, logger, clock, ...(deps.outcomes ? { outcomes: deps.outcomes } : {}) });
  const sponsorLedger = redis.sponsorLedger();
  const declined = registerSponsorOutflow(metrics, sponsorLedger, clock);
  const chain = deps.chain ? new ChainRail(deps.chain, config.sponsorFloorWei, floorStops(metrics)) : undefined;
  if (chain) logger.info('exact settles on chain', { networks: deps.chain!.networks(), facilitator: chain.address });
  // The sponsor is the facilitator's own account on a chain, the ledger's simulated balance otherwise.
  const sponsorBalance = (network: string) => (chain ? chain.sponsorBalance(network) : ledger.sponsorBalance(network));
  const policy = new SponsorshipPolicy(config.sponsorship, sponsorLedger, sponsorBalance, clock);
  const sponsorship = {
    decide: async (payment: Parameters<SponsorshipPolicy['decide']>[0]) => {
      const verdict = await policy.decide(payment);
      if (!verdict.sponsored) declined(verdict.reason);
      return verdict;
    },
    record: (payment: Parameters<SponsorshipPolicy['record']>[0], circular: boolean) => policy.record(payment, circular),
  };
  const settlements = new SettlementHistory(redis.settlementLog(SETTLEMENTS_PER_PAYEE, SETTLEMENT_RETENTION_DAYS * 86_400), logger, clock);
  const service = new FacilitatorService({
    config,
    history: settlements,
    ledger,
    ...(chain ? { chain } : {}),
    settlements: redis.settlements(config.settlePendingWaitMs),
    payerLimit: new PayerLimit(config.rateLimits.facilitatorPayer ? redis.payerPayments() : undefined, config.rateLimits.facilitatorPayer),
    traffic,
    sponsorship,
    metrics,
    logger,
    clock,
  });
  registerSponsorGauges(config, sponsorBalance, metrics);
  return { service, settlements, ledger, cataloger };
}

/**
 * The sponsor's balance in ETH (on a chain: the facilitator account's native balance, read from
 * the chain at each scrape), the configured floor, and a 0/1 flag when the balance is below it
 * (alert on `facilitator_sponsor_below_floor == 1`: on a chain settlements stop with
 * sponsor_below_floor before a fee would cross it; on the ledger with sponsor_insufficient_funds
 * once it cannot pay one more fee).
 */
function registerSponsorGauges(config: Config, sponsorBalance: (network: string) => Promise<bigint>, metrics: Metrics): void {
  const sample = (value: (balance: bigint) => number) => async () =>
    Promise.all(
      config.facilitatorNetworks.map(async (network) => ({ labels: { network }, value: value(await sponsorBalance(network)) })),
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
