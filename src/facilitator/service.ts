/**
 * The facilitator: /supported, /verify and /settle in x402 wire shapes (v2, and v1) over the test
 * ledger. It never pays for nothing: zero-value payments and payments to oneself are refused, and a
 * payer's budget is counted per distinct payment (PayerLimit). Requests also feed the listing's
 * signals and the catalog, on evidence only (docs/facilitator.md "Evidence before listing"): a
 * settlement that moved value writes the listing and counts, a valid verify only asks for a probe,
 * and a rejection counts only when a funded wallet provably signed it. Both are best effort and
 * never change or delay the answer beyond a Redis round trip.
 */
import { keccak256, stringToHex } from 'viem';
import type { Config } from '../config.js';
import { legacyNetworkNames, toCaip2Network } from '../x402/networks.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { SignalCounters } from '../store/redis/signalCounters.js';
import { checkExactPayment } from './exactScheme.js';
import type { Ledger, SettleOutcome } from '../store/redis/ledger.js';
import type { PayerLimit } from './payerLimit.js';
import { Reason, Rejection, reject, wireReason } from './reasons.js';
import { isObject } from '../core/json.js';
import { isAddress, normalizeRequest, readFacilitatorRequest, type PaymentRequest, type RawFacilitatorRequest } from './request.js';
import { payloadHash, requestBinding, RESULT_TTL_SECONDS, type SettlementStore } from '../store/redis/settlementStore.js';
import type { TrafficCataloger } from './trafficCatalog.js';
import { sightingOf, type TrafficSighting } from './trafficSighting.js';
import type { AcceptedPayment, CheckMode } from './transfer.js';
import { checkUptoPayment } from './uptoScheme.js';
import { BAZAAR_DISCOVERY } from '../bazaar/bazaar.js';
import type { BazaarOutcome, SettleResponse, VerifyResponse } from '../x402/wire.js';

/** How long an answer waits to tell the seller what became of the discovery metadata; after it, `processing`. */
const OUTCOME_WAIT_MS = 250;

/** A /verify or /settle answer and, when the request carried discovery metadata, its Bazaar outcome. */
export interface FacilitatorAnswer<T> {
  response: T;
  bazaar?: BazaarOutcome;
}

/** A client's field echoed back: a string, or '' (String() on an object with its own toString throws). */
const wireText = (value: unknown): string => (typeof value === 'string' ? value : '');

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
  payerLimit: PayerLimit;
  counters: SignalCounters;
  cataloger: TrafficCataloger;
  metrics: Metrics;
  logger: Logger;
  clock: Clock;
}

/** Ledger refusals; `payer` (the recovered signer) makes a payer's own failure count as a rejection at /verify. */
const SETTLE_FAILURES: Record<Exclude<SettleOutcome, 'ok'>, (scheme: string, payer?: string) => Rejection> = {
  nonce_used: (scheme, payer) =>
    scheme === 'upto'
      ? reject(Reason.permit2NonceUsed, 'the Permit2 nonce was already used', payer)
      : reject(Reason.exactNonceUsed, 'the authorization nonce was already used', payer),
  insufficient_funds: (_scheme, payer) => reject(Reason.insufficientFunds, 'the payer balance does not cover the amount', payer),
  sponsor_insufficient_funds: () => sponsorExhausted(),
};

function sponsorExhausted(): Rejection {
  return reject(Reason.sponsorInsufficientFunds, 'the facilitator fee sponsor cannot pay the network fee; nothing was charged, retry once it is funded');
}

/** The (fake, well-formed) transaction hash of a payload's settlement: the same for every attempt at it. */
function settlementTransaction(payloadHash: string): string {
  return keccak256(stringToHex(`x402-test-ledger:${payloadHash}`));
}

/** Whether the request carries discovery metadata: the v2 bazaar extension, or v1 `outputSchema.input`. */
function carriesDiscovery(raw: RawFacilitatorRequest): boolean {
  const { paymentPayload: pp, paymentRequirements: pr } = raw;
  if (raw.x402Version === 2) return isObject(pp.extensions) && isObject(pp.extensions.bazaar);
  return isObject(pr.outputSchema) && isObject(pr.outputSchema.input) && pr.outputSchema.input.discoverable !== false;
}

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

  async verify(body: unknown): Promise<FacilitatorAnswer<VerifyResponse>> {
    const raw = readFacilitatorRequest(body);
    const checked = this.check(raw, 'verify');
    let outcome: Rejection | AcceptedPayment = checked.outcome;
    let payerFunded: boolean | undefined;
    if (!(outcome instanceof Rejection)) {
      const { transfer, payer } = outcome;
      await this.deps.payerLimit.consume('verify', payer, transfer);
      const state = await this.deps.ledger.inspect(transfer);
      payerFunded = state.balance > 0n;
      if (state.nonceUsed) outcome = SETTLE_FAILURES.nonce_used(checked.request!.requirements.scheme, payer);
      else if (state.balance < transfer.amount) {
        outcome = reject(Reason.insufficientFunds, `balance ${state.balance} is below ${transfer.amount}`, payer);
      } else if (state.sponsorBalance < this.deps.config.settlementFeeWei) outcome = sponsorExhausted();
    }
    const valid = !(outcome instanceof Rejection);
    const cataloging = this.observeVerify(raw, checked.request, outcome, payerFunded);
    const invalidReason = outcome instanceof Rejection ? this.wire(raw, outcome) : '';
    this.deps.metrics.verifyOutcomes.inc({ ...this.labels(checked.request), outcome: valid ? 'valid' : 'invalid', reason: invalidReason });
    if (outcome instanceof Rejection) {
      const response: VerifyResponse = { isValid: false, invalidReason, invalidMessage: outcome.message };
      const payer = claimedPayer(raw);
      if (payer) response.payer = payer;
      return this.answer(raw, response, invalidReason);
    }
    return this.answer(raw, { isValid: true, payer: outcome.payer }, undefined, cataloging);
  }

  async settle(body: unknown): Promise<FacilitatorAnswer<SettleResponse>> {
    const raw = readFacilitatorRequest(body);
    const hash = payloadHash(raw.paymentPayload);
    const binding = requestBinding(raw.x402Version, raw.paymentRequirements);
    let request: PaymentRequest | undefined;
    let moved: AcceptedPayment | undefined;
    const stored = await this.deps.settlements.once<SettleResponse>(hash, binding, async () => {
      const checked = this.check(raw, 'settle');
      request = checked.request;
      const network = checked.request?.wireNetwork ?? wireText(raw.paymentRequirements.network);
      let outcome: Rejection | AcceptedPayment = checked.outcome;
      let result: SettleResponse | undefined;
      if (!(outcome instanceof Rejection)) {
        await this.deps.payerLimit.consume('settle', outcome.payer, outcome.transfer);
        if (outcome.transfer.amount === 0n) {
          // upto with nothing used: nothing moves and no fee is paid; @x402/evm answers it the same way.
          return { result: { success: true, payer: outcome.payer, transaction: '', network, amount: '0' }, final: false };
        }
        result = {
          success: true,
          payer: outcome.payer,
          transaction: settlementTransaction(hash),
          network,
          amount: outcome.transfer.amount.toString(),
        };
        const record = { key: this.deps.settlements.resultKey(hash), value: this.deps.settlements.receipt(binding, result), ttlSeconds: RESULT_TTL_SECONDS };
        const ledgerOutcome = await this.deps.ledger.settle(outcome.transfer, this.deps.config.settlementFeeWei, record);
        if (ledgerOutcome !== 'ok') outcome = SETTLE_FAILURES[ledgerOutcome](checked.request!.requirements.scheme);
        else moved = outcome;
      }
      if (outcome instanceof Rejection) {
        const failure: SettleResponse = { success: false, errorReason: this.wire(raw, outcome), errorMessage: outcome.message, transaction: '', network };
        const payer = claimedPayer(raw);
        if (payer) failure.payer = payer;
        return { result: failure, final: false };
      }
      // Not a rejection: the success result was built and stored with the ledger movement.
      return { result: result!, final: true };
    });

    const labels = this.labels(request ?? normalizeRequest(raw, this.deps.config.facilitatorNetworks));
    if ('pending' in stored || 'mismatch' in stored) {
      const failure = 'pending' in stored
        ? reject(Reason.settlementPending, 'an identical settlement is still in progress; retry with the same payload')
        : reject(Reason.settlementRequirementsMismatch, 'this payment payload was already settled with other payment requirements; nothing moved for these');
      const errorReason = this.wire(raw, failure);
      this.deps.metrics.settleOutcomes.inc({ ...labels, outcome: 'failed', reason: errorReason });
      // A pending settlement names the transaction it is settling: @x402/core's x402ResourceServer
      // retries `settlement_pending` once, and only when `transaction` is set (docs/facilitator.md).
      const transaction = 'pending' in stored ? settlementTransaction(hash) : '';
      return { response: { success: false, errorReason, errorMessage: failure.message, transaction, network: wireText(raw.paymentRequirements.network) } };
    }
    const { result, replayed } = stored;
    const outcome = replayed ? 'replayed' : result.success ? 'settled' : 'failed';
    this.deps.metrics.settleOutcomes.inc({ ...labels, outcome, reason: result.errorReason ?? '' });
    // `moved` is set only when this request moved value > 0 from a payer other than payTo.
    if (moved) return this.answer(raw, result, undefined, this.observeSettlement(sightingOf(raw), moved.payer, result.amount));
    // A replayed receipt or a settle of 0 changes nothing in the catalog: nothing to report.
    return result.success ? { response: result } : this.answer(raw, result, result.errorReason);
  }

  /**
   * Adds the Bazaar outcome when the request carried discovery metadata (docs/facilitator.md "What
   * the seller is told"): rejected with the refusal when the payment was refused, else what the
   * cataloger did, waited for at most OUTCOME_WAIT_MS (`processing` after that; the work goes on).
   */
  private async answer<T>(raw: RawFacilitatorRequest, response: T, refusedWith?: string, cataloging?: Promise<BazaarOutcome | undefined>): Promise<FacilitatorAnswer<T>> {
    if (!carriesDiscovery(raw)) return { response };
    if (refusedWith !== undefined) {
      return { response, bazaar: { status: 'rejected', rejectedReason: `the payment was refused (${refusedWith}); a refused payment lists nothing` } };
    }
    if (!cataloging) return { response, bazaar: { status: 'rejected', rejectedReason: 'the request names no resource the catalog can key (resource.url, or info.input.toolName or info.input.tool for MCP)' } };
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<BazaarOutcome>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'processing' }), OUTCOME_WAIT_MS);
    });
    const bazaar = (await Promise.race([cataloging, late])) ?? { status: 'rejected', rejectedReason: 'the request names no resource the catalog can key' };
    clearTimeout(timer);
    return { response, bazaar };
  }

  /** The code a refusal carries on the wire: v1 and v2 requests name some refusals differently (reasons.ts). */
  private wire(raw: RawFacilitatorRequest, rejection: Rejection): string {
    return wireReason(rejection.reason, raw.x402Version, raw.paymentRequirements.scheme);
  }

  /** Shape, support and scheme checks (no ledger state); the normalized request when it got that far. */
  private check(raw: RawFacilitatorRequest, mode: CheckMode): { request?: PaymentRequest; outcome: Rejection | AcceptedPayment } {
    const request = normalizeRequest(raw, this.deps.config.facilitatorNetworks);
    if (request instanceof Rejection) return { outcome: request };
    const now = BigInt(Math.floor(this.deps.clock() / 1000));
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

  /** A settlement that moved value: it counts (payer-bounded) and may write the listing (its outcome). */
  private observeSettlement(sighting: TrafficSighting | undefined, payer: string, settledAmount: string | undefined): Promise<BazaarOutcome> | undefined {
    if (!sighting) return undefined;
    // The amount an `upto` payment actually settled feeds the listing's median beside its ceiling.
    const upto = sighting.accept.scheme === 'upto' ? settledAmount : undefined;
    this.count(sighting.listingId, () => this.deps.counters.recordSettle(sighting.listingId, payer, upto));
    return this.deps.cataloger.settled(sighting);
  }

  /**
   * A verification counts toward the rejection rate only when a funded wallet provably signed it
   * (a rejection carries `payer` only after its signature was recovered, and only when the payment
   * would have moved value to someone else), so junk from fresh or forged wallets moves nothing. A
   * valid one also asks for a probe of the resource; it never writes the listing itself.
   */
  private observeVerify(raw: RawFacilitatorRequest, request: PaymentRequest | undefined, outcome: Rejection | AcceptedPayment, funded: boolean | undefined): Promise<BazaarOutcome> | undefined {
    const payer = outcome.payer;
    if (!payer || !request) return undefined;
    const sighting = sightingOf(raw);
    if (!sighting) return undefined;
    const { counters, ledger, cataloger } = this.deps;
    if (!(outcome instanceof Rejection)) {
      // Funded unless the price is 0 (an upto verify may be): a fresh wallet must not dilute the rate either.
      if (funded) this.count(sighting.listingId, () => counters.recordVerify(sighting.listingId, payer, true));
      return cataloger.verified(sighting);
    }
    this.count(sighting.listingId, async () => {
      const { network, asset } = request.requirements;
      const isFunded = funded ?? (await ledger.balance(network, asset, payer)) > 0n;
      return isFunded ? counters.recordVerify(sighting.listingId, payer, false) : false;
    });
    return undefined;
  }

  private count(listingId: string, work: () => Promise<unknown>): void {
    work().catch((err: unknown) => this.deps.logger.warn('signal counting failed', { listingId, err: (err as Error).message }));
  }
}
