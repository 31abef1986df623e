/**
 * The facilitator: /supported, /verify and /settle in x402 wire shapes (v2, and v1) over the test
 * ledger. Every request also feeds the listing's signals and, when the payment is good, the catalog;
 * both are best effort and never change or delay the answer beyond a Redis round trip.
 */
import { keccak256, stringToHex } from 'viem';
import type { Config } from '../config.js';
import { legacyNetworkNames, toCaip2Network } from '../catalog/networks.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { SignalCounters } from '../signals/counters.js';
import { checkExactPayment } from './exactScheme.js';
import type { Ledger, SettleOutcome } from './ledger.js';
import { Reason, Rejection, reject } from './reasons.js';
import { isAddress, isObject, normalizeRequest, readFacilitatorRequest, type PaymentRequest, type RawFacilitatorRequest } from './request.js';
import { payloadHash, RESULT_TTL_SECONDS, type SettlementStore } from './settlementStore.js';
import type { TrafficCataloger } from './trafficCatalog.js';
import { sightingOf, type TrafficSighting } from './trafficSighting.js';
import type { AcceptedPayment, CheckMode } from './transfer.js';
import { checkUptoPayment } from './uptoScheme.js';
import { BAZAAR_DISCOVERY } from '../x402/bazaar.js';
import type { SettleResponse, VerifyResponse } from '../x402/wire.js';

export interface SupportedKind {
  x402Version: number;
  scheme: string;
  network: string;
  extra?: Record<string, unknown>;
}

export interface SupportedResponse {
  kinds: SupportedKind[];
  extensions: string[];
  signers: Record<string, string[]>;
  /** This service's addition: where the Bazaar-shaped discovery surface is (x402 clients ignore unknown members). */
  discovery: { bazaar: typeof BAZAAR_DISCOVERY };
}

export interface FacilitatorDeps {
  config: Pick<Config, 'facilitatorNetworks' | 'facilitatorAddress' | 'settlementFeeWei'>;
  ledger: Ledger;
  settlements: SettlementStore;
  counters: SignalCounters;
  cataloger: TrafficCataloger;
  metrics: Metrics;
  logger: Logger;
  clock: Clock;
}

const SETTLE_FAILURES: Record<Exclude<SettleOutcome, 'ok'>, (scheme: string) => Rejection> = {
  nonce_used: (scheme) =>
    scheme === 'upto'
      ? reject(Reason.permit2NonceUsed, 'the Permit2 nonce was already used')
      : reject(Reason.exactNonceUsed, 'the authorization nonce was already used'),
  insufficient_funds: () => reject(Reason.insufficientFunds, 'the payer balance does not cover the amount'),
  sponsor_insufficient_funds: () => reject(Reason.sponsorInsufficientFunds, 'the fee sponsor balance cannot pay the network fee'),
};

/** Best-effort payer address of a payload that did not pass the checks (x402 reports it when it can). */
function claimedPayer(raw: RawFacilitatorRequest): string | undefined {
  const payload = raw.paymentPayload.payload;
  if (!isObject(payload)) return undefined;
  const from = isObject(payload.authorization) ? payload.authorization.from : isObject(payload.permit2Authorization) ? payload.permit2Authorization.from : undefined;
  return isAddress(from) ? from : undefined;
}

export class FacilitatorService {
  constructor(private readonly deps: FacilitatorDeps) {}

  supported(): SupportedResponse {
    const { facilitatorNetworks, facilitatorAddress } = this.deps.config;
    const kinds: SupportedKind[] = [];
    for (const network of facilitatorNetworks) {
      kinds.push({ x402Version: 2, scheme: 'exact', network });
      kinds.push({ x402Version: 2, scheme: 'upto', network, extra: { facilitatorAddress } });
    }
    for (const name of legacyNetworkNames()) {
      const network = toCaip2Network(name);
      if (network && facilitatorNetworks.includes(network)) kinds.push({ x402Version: 1, scheme: 'exact', network: name });
    }
    return { kinds, extensions: ['bazaar'], signers: { 'eip155:*': [facilitatorAddress] }, discovery: { bazaar: BAZAAR_DISCOVERY } };
  }

  async verify(body: unknown): Promise<VerifyResponse> {
    const raw = readFacilitatorRequest(body);
    const checked = this.check(raw, 'verify');
    let outcome: Rejection | AcceptedPayment = checked.outcome;
    if (!(outcome instanceof Rejection)) {
      const { transfer } = outcome;
      const state = await this.deps.ledger.inspect(transfer);
      if (state.nonceUsed) outcome = SETTLE_FAILURES.nonce_used(checked.request!.requirements.scheme);
      else if (state.balance < transfer.amount) {
        outcome = reject(Reason.insufficientFunds, `balance ${state.balance} is below ${transfer.amount}`);
      }
    }
    const valid = !(outcome instanceof Rejection);
    const sighting = sightingOf(raw);
    this.observe(sighting, valid ? 'verified' : 'rejected');
    this.deps.metrics.verifyOutcomes.inc({
      ...this.labels(checked.request),
      outcome: valid ? 'valid' : 'invalid',
      reason: outcome instanceof Rejection ? outcome.reason : '',
    });
    if (outcome instanceof Rejection) {
      const response: VerifyResponse = { isValid: false, invalidReason: outcome.reason, invalidMessage: outcome.message };
      const payer = claimedPayer(raw);
      if (payer) response.payer = payer;
      return response;
    }
    return { isValid: true, payer: outcome.payer };
  }

  async settle(body: unknown): Promise<SettleResponse> {
    const raw = readFacilitatorRequest(body);
    const hash = payloadHash(raw.paymentPayload);
    let request: PaymentRequest | undefined;
    const stored = await this.deps.settlements.once<SettleResponse>(hash, async () => {
      const checked = this.check(raw, 'settle');
      request = checked.request;
      const network = checked.request?.wireNetwork ?? String(raw.paymentRequirements.network ?? '');
      let outcome: Rejection | AcceptedPayment = checked.outcome;
      let result: SettleResponse | undefined;
      if (!(outcome instanceof Rejection)) {
        result = {
          success: true,
          payer: outcome.payer,
          transaction: keccak256(stringToHex(`x402-test-ledger:${hash}`)),
          network,
          amount: outcome.transfer.amount.toString(),
        };
        const record = { key: this.deps.settlements.resultKey(hash), value: JSON.stringify(result), ttlSeconds: RESULT_TTL_SECONDS };
        const ledgerOutcome = await this.deps.ledger.settle(outcome.transfer, this.deps.config.settlementFeeWei, record);
        if (ledgerOutcome !== 'ok') outcome = SETTLE_FAILURES[ledgerOutcome](checked.request!.requirements.scheme);
      }
      if (outcome instanceof Rejection) {
        const failure: SettleResponse = { success: false, errorReason: outcome.reason, errorMessage: outcome.message, transaction: '', network };
        const payer = claimedPayer(raw);
        if (payer) failure.payer = payer;
        return { result: failure, final: false };
      }
      // Not a rejection: the success result was built and stored with the ledger movement.
      return { result: result!, final: true };
    });

    const labels = this.labels(request ?? normalizeRequest(raw, this.deps.config.facilitatorNetworks));
    if ('pending' in stored) {
      this.deps.metrics.settleOutcomes.inc({ ...labels, outcome: 'failed', reason: Reason.settlementPending });
      return {
        success: false,
        errorReason: Reason.settlementPending,
        errorMessage: 'an identical settlement is still in progress; retry with the same payload',
        transaction: '',
        network: String(raw.paymentRequirements.network ?? ''),
      };
    }
    const { result, replayed } = stored;
    const outcome = replayed ? 'replayed' : result.success ? 'settled' : 'failed';
    this.deps.metrics.settleOutcomes.inc({ ...labels, outcome, reason: result.errorReason ?? '' });
    if (result.success && !replayed) this.observe(sightingOf(raw), 'settled');
    return result;
  }

  /** Shape, support and scheme checks (no ledger state); the normalized request when it got that far. */
  private check(raw: RawFacilitatorRequest, mode: CheckMode): { request?: PaymentRequest; outcome: Rejection | AcceptedPayment } {
    const request = normalizeRequest(raw, this.deps.config.facilitatorNetworks);
    if (request instanceof Rejection) return { outcome: request };
    const now = BigInt(Math.floor(this.deps.clock().getTime() / 1000));
    const outcome =
      request.requirements.scheme === 'upto'
        ? checkUptoPayment(request, now, this.deps.config.facilitatorAddress, mode)
        : checkExactPayment(request, now);
    return { request, outcome };
  }

  private labels(request: PaymentRequest | Rejection | undefined): { scheme: string; network: string } {
    // Only normalized, supported values become labels: raw client strings would grow cardinality without bound.
    if (!request || request instanceof Rejection) return { scheme: 'unknown', network: 'unknown' };
    return { scheme: request.requirements.scheme, network: request.requirements.network };
  }

  /** Signals for every request that names a resource; the catalog only learns from good payments. */
  private observe(sighting: TrafficSighting | undefined, event: 'verified' | 'rejected' | 'settled'): void {
    if (!sighting) return;
    const { counters, cataloger, logger } = this.deps;
    const counted = event === 'settled' ? counters.recordSettle(sighting.listingId) : counters.recordVerify(sighting.listingId, event === 'verified');
    counted.catch((err: unknown) => logger.warn('signal counting failed', { listingId: sighting.listingId, err: (err as Error).message }));
    if (event !== 'rejected') cataloger.observe(sighting);
  }
}
