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

export interface Facilitator {
  service: FacilitatorService;
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
    writer: CatalogWriter;
    reader: CatalogReader;
    metrics: Metrics;
    /** The announce path a payment of an unlisted resource asks to probe it (AnnounceService). */
    probes: ProbeScheduler;
  },
  clock: Clock = systemClock,
): Facilitator {
  const { writer, reader, metrics, redis } = deps;
  const ledger = redis.ledger(config.sponsorInitialWei);
  const cataloger = new TrafficCataloger({ writer: () => writer, logger, refreshMs: config.trafficRefreshMs, probes: deps.probes });
  const pending = redis.pendingCredits(PENDING_CREDITS);
  const resolver = new PendingCreditResolver(pending, deps.signals, logger, clock);
  const traffic = new TrafficCredit({ reader, signals: deps.signals, pending, resolver, cataloger, logger, clock });
  const sponsorLedger = redis.sponsorLedger();
  const declined = registerSponsorOutflow(metrics, sponsorLedger, clock);
  const policy = new SponsorshipPolicy(config.sponsorship, sponsorLedger, (network) => ledger.sponsorBalance(network), clock);
  const sponsorship = {
    decide: async (payment: Parameters<SponsorshipPolicy['decide']>[0]) => {
      const verdict = await policy.decide(payment);
      if (!verdict.sponsored) declined(verdict.reason);
      return verdict;
    },
    record: (payment: Parameters<SponsorshipPolicy['record']>[0], circular: boolean) => policy.record(payment, circular),
  };
  const service = new FacilitatorService({
    config,
    ledger,
    settlements: redis.settlements(config.settlePendingWaitMs),
    payerLimit: new PayerLimit(config.rateLimits.facilitatorPayer ? redis.payerPayments() : undefined, config.rateLimits.facilitatorPayer),
    traffic,
    sponsorship,
    metrics,
    logger,
    clock,
  });
  registerSponsorGauges(config, ledger, metrics);
  return { service, ledger, cataloger };
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
