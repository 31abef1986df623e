/**
 * The facilitator: /supported, /verify and /settle in x402 wire shapes (v2, and v1), settled on a
 * chain for the schemes that settle there once a facilitator key is configured (chainRail.ts:
 * exact), else on the Redis test ledger. It never pays for nothing: zero-value payments and payments to oneself are refused, a
 * payer's budget is counted per distinct payment (PayerLimit), and the fee sponsor pays only what
 * its policy sponsors (sponsorship.ts: a minimum value, budgets per payer and payee, no value in
 * circles). Requests also feed the listing's signals, on evidence only (trafficCredit.ts; issue 43):
 * a payment counts for a listing only when it paid that listing's seller, and traffic never writes
 * a listing (an unlisted resource only gets a probe). Best effort, never changing the answer.
 */
import { keccak256, stringToHex } from 'viem';
import type { Config } from '../config/index.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Ledger, SettleOutcome } from '../store/redis/ledger.js';
import type { PayerLimit } from './payerLimit.js';
import { Reason, Rejection, reject } from './reasons.js';
import { parseFacilitatorRequest, parseSettleRequest, type FacilitatorRequest, type SettleRequest } from './request.js';
import type { CheckedPayment, CheckMode, PaymentRequest, PaymentScheme } from './payment.js';
import { supportedKinds, wireReason, type SupportedKind } from './paymentSchemes.js';
import { RESULT_TTL_SECONDS, type SettlementStore } from '../store/redis/settlementStore.js';
import type { TrafficCredit } from './trafficCredit.js';
import type { SponsorshipPolicy } from './sponsorship.js';
import type { ChainRail } from './chainRail.js';
import type { SettlementHistory } from './settlementHistory.js';
import { answerWith, type FacilitatorAnswer } from './answer.js';
import { BAZAAR_DISCOVERY } from '../bazaar/bazaar.js';
import type { BazaarOutcome, SettleResponse, VerifyResponse } from '../x402/wire.js';

export type { FacilitatorAnswer };

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
  /** Where `chainPayment` schemes settle when a facilitator key is configured (issue 44); absent: the ledger. */
  chain?: ChainRail;
  settlements: SettlementStore;
  /** Where a settlement mined on chain is recorded for its seller to look up (absent in unit tests that do not read it). */
  history?: Pick<SettlementHistory, 'record'>;
  payerLimit: PayerLimit;
  /** Where payments are credited to the listings they paid (and unlisted resources get a probe). */
  traffic: TrafficCredit;
  /** Whether the fee sponsor pays for a settlement (consulted at /verify too). */
  sponsorship: Pick<SponsorshipPolicy, 'decide' | 'record'>;
  metrics: Metrics;
  logger: Logger;
  clock: Clock;
}

/** Ledger refusals; `payer` (the recovered signer) makes a payer's own failure count as a rejection at /verify. */
const SETTLE_FAILURES: Record<Exclude<SettleOutcome, 'ok'>, (scheme: PaymentScheme, payer?: string) => Rejection> = {
  nonce_used: (scheme, payer) => scheme.nonceUsed(payer),
  expired: (scheme, payer) => scheme.expired(payer),
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

/** A settlement that moved value; `transaction` only when it is a real one (on a chain). */
type Moved = { payment: CheckedPayment; scheme: PaymentScheme; circular: boolean; transaction?: string };

export class FacilitatorService {
  constructor(private readonly deps: FacilitatorDeps) {}

  supported(): SupportedResponse {
    const { facilitatorNetworks, facilitatorAddress } = this.deps.config;
    const kinds = supportedKinds(facilitatorNetworks, facilitatorAddress);
    const signer = this.deps.chain?.address ?? facilitatorAddress;
    return { kinds, extensions: ['bazaar'], signers: { 'eip155:*': [signer] }, discovery: { bazaar: BAZAAR_DISCOVERY } };
  }

  /** The one parse of a /verify body (the HTTP edge calls it; verify takes its result). */
  readVerify(body: unknown): FacilitatorRequest {
    return parseFacilitatorRequest(body, this.deps.config.facilitatorNetworks);
  }

  /** The one parse of a /settle body (the HTTP edge calls it; settle takes its result). */
  readSettle(body: unknown): SettleRequest {
    return parseSettleRequest(body, this.deps.config.facilitatorNetworks);
  }

  async verify(request: FacilitatorRequest): Promise<FacilitatorAnswer<VerifyResponse>> {
    const checked = this.check(request, 'verify');
    let outcome: Rejection | CheckedPayment = checked.outcome;
    let payerBalance: bigint | undefined;
    if (!(outcome instanceof Rejection)) {
      const { transfer, payer } = outcome;
      await this.deps.payerLimit.consume('verify', payer, transfer);
      const inspection = await this.inspect(checked.request!, outcome);
      payerBalance = inspection.balance;
      if (inspection.rejection) outcome = inspection.rejection;
      else {
        // Told now, before the seller does the work: the settlement would not be sponsored.
        const sponsorship = await this.deps.sponsorship.decide(this.sponsored(outcome, inspection.feeWei));
        if (!sponsorship.sponsored) outcome = reject(Reason.sponsorshipDeclined, sponsorship.message);
      }
    }
    const valid = !(outcome instanceof Rejection);
    const cataloging = this.observeVerify(request, checked.request, outcome, payerBalance);
    const invalidReason = outcome instanceof Rejection ? this.wire(request, outcome) : '';
    this.deps.metrics.verifyOutcomes.inc({ ...this.labels(request), outcome: valid ? 'valid' : 'invalid', reason: invalidReason });
    if (outcome instanceof Rejection) {
      const response: VerifyResponse = { isValid: false, invalidReason, invalidMessage: outcome.message };
      if (request.claimedPayer) response.payer = request.claimedPayer;
      return answerWith(request, response, invalidReason);
    }
    return answerWith(request, { isValid: true, payer: outcome.payer }, undefined, cataloging);
  }

  async settle(request: SettleRequest): Promise<FacilitatorAnswer<SettleResponse>> {
    const { payloadHash: hash, binding, wireNetwork: network } = request;
    let moved: Moved | undefined;
    const stored = await this.deps.settlements.once<SettleResponse>(hash, binding, async () => {
      const checked = this.check(request, 'settle');
      let outcome: Rejection | CheckedPayment = checked.outcome;
      let result: SettleResponse | undefined;
      if (!(outcome instanceof Rejection)) {
        await this.deps.payerLimit.consume('settle', outcome.payer, outcome.transfer);
        if (outcome.transfer.amount === 0n) {
          // upto with nothing used: nothing moves and no fee is paid; @x402/evm answers it the same way.
          return { result: { success: true, payer: outcome.payer, transaction: '', network, amount: '0' }, final: false };
        }
        const chain = this.railOf(checked.request!);
        if (chain) return this.settleOnChain(request, chain, checked.request!, outcome, (m) => (moved = m));
        const sponsored = this.sponsored(outcome);
        const sponsorship = await this.deps.sponsorship.decide(sponsored);
        if (!sponsorship.sponsored) outcome = reject(Reason.sponsorshipDeclined, sponsorship.message);
        else {
          result = {
            success: true,
            payer: outcome.payer,
            transaction: settlementTransaction(hash),
            network,
            amount: outcome.transfer.amount.toString(),
          };
          const record = { key: this.deps.settlements.resultKey(hash), value: this.deps.settlements.receipt(binding, result), ttlSeconds: RESULT_TTL_SECONDS };
          const ledgerOutcome = await this.deps.ledger.settle(outcome.transfer, this.deps.config.settlementFeeWei, record);
          if (ledgerOutcome !== 'ok') outcome = SETTLE_FAILURES[ledgerOutcome](checked.request!.scheme);
          else {
            moved = { payment: outcome, scheme: checked.request!.scheme, circular: sponsorship.circular };
            await this.deps.sponsorship.record(sponsored, sponsorship.circular).catch((err: Error) => this.deps.logger.warn('sponsorship record failed', { err: err.message }));
          }
        }
      }
      if (outcome instanceof Rejection) return { result: this.failure(request, outcome), final: false };
      // Not a rejection: the success result was built and stored with the ledger movement.
      return { result: result!, final: true };
    });

    const labels = this.labels(request);
    if ('pending' in stored || 'mismatch' in stored) {
      const failure = 'pending' in stored
        ? reject(Reason.settlementPending, 'an identical settlement is still in progress; retry with the same payload')
        : reject(Reason.settlementRequirementsMismatch, 'this payment payload was already settled with other payment requirements; nothing moved for these');
      const errorReason = this.wire(request, failure);
      this.deps.metrics.settleOutcomes.inc({ ...labels, outcome: 'failed', reason: errorReason });
      // A pending settlement names the transaction it is settling: @x402/core's x402ResourceServer
      // retries `settlement_pending` once, and only when `transaction` is set (docs/facilitator.md).
      const transaction = 'pending' in stored ? await this.pendingTransaction(request, hash) : '';
      return { response: { success: false, errorReason, errorMessage: failure.message, transaction, network } };
    }
    const { result, replayed } = stored;
    const outcome = replayed ? 'replayed' : result.success ? 'settled' : 'failed';
    this.deps.metrics.settleOutcomes.inc({ ...labels, outcome, reason: result.errorReason ?? '' });
    // `moved` is set only when this request moved value > 0 from a payer other than payTo.
    if (moved) return answerWith(request, result, undefined, this.observeSettlement(request, moved, result.amount));
    // A replayed receipt or a settle of 0 changes nothing in the catalog: nothing to report.
    return result.success ? { response: result } : answerWith(request, result, result.errorReason);
  }

  /** The code a refusal carries on the wire: v1 and v2 requests name some refusals differently (paymentSchemes.ts). */
  private wire(request: FacilitatorRequest, rejection: Rejection): string {
    return wireReason(rejection.reason, request.x402Version, request.wireScheme);
  }

  /** The scheme's checks (no ledger state) of a normalized payment; the refusal of one that is not. */
  private check(request: FacilitatorRequest, mode: CheckMode): { request?: PaymentRequest; outcome: Rejection | CheckedPayment } {
    const payment = request.payment;
    if (payment instanceof Rejection) return { outcome: payment };
    const nowSeconds = BigInt(Math.floor(this.deps.clock() / 1000));
    return { request: payment, outcome: payment.scheme.check(payment, { nowSeconds, mode, facilitatorAddress: this.deps.config.facilitatorAddress }) };
  }

  private labels(request: FacilitatorRequest): { scheme: string; network: string } {
    // Only normalized, supported values become labels: raw client strings would grow cardinality without bound.
    const payment = request.payment;
    if (payment instanceof Rejection) return { scheme: 'unknown', network: 'unknown' };
    return { scheme: payment.requirements.scheme, network: payment.requirements.network };
  }

  /** What the sponsorship policy is asked about a checked payment, with this settlement's fee (the ledger's simulated one by default). */
  private sponsored(payment: CheckedPayment, feeWei = this.deps.config.settlementFeeWei) {
    const { transfer, payer } = payment;
    return { payer, payee: transfer.to, network: transfer.network, amount: transfer.amount, feeWei };
  }

  /** Chain or ledger state of a checked payment at /verify: its refusal if any, the payer's balance, the fee. */
  private async inspect(payment: PaymentRequest, checked: CheckedPayment): Promise<{ rejection?: Rejection; balance: bigint; feeWei: bigint }> {
    const chain = this.railOf(payment);
    if (chain) return chain.inspect(payment, checked);
    const { transfer, payer } = checked;
    const { nonceUsed, balance, sponsorBalance } = await this.deps.ledger.inspect(transfer);
    const feeWei = this.deps.config.settlementFeeWei;
    if (nonceUsed) return { rejection: SETTLE_FAILURES.nonce_used(payment.scheme, payer), balance, feeWei };
    if (balance < transfer.amount) return { rejection: reject(Reason.insufficientFunds, `balance ${balance} is below ${transfer.amount}`, payer), balance, feeWei };
    return sponsorBalance < feeWei ? { rejection: sponsorExhausted(), balance, feeWei } : { balance, feeWei };
  }

  /** The chain a request settles on, when its scheme settles on one and a key is configured. */
  private railOf(payment: PaymentRequest): ChainRail | undefined {
    return payment.scheme.chainPayment ? this.deps.chain : undefined;
  }

  private failure(request: FacilitatorRequest, rejection: Rejection, transaction = ''): SettleResponse {
    const failure: SettleResponse = { success: false, errorReason: this.wire(request, rejection), errorMessage: rejection.message, transaction, network: request.wireNetwork };
    if (request.claimedPayer) failure.payer = request.claimedPayer;
    return failure;
  }

  /**
   * A settlement on chain: the floor and the sponsorship with this settlement's real gas cost, then
   * the one transfer of the authorization (reconciled if it was already sent). Final only once
   * mined: a pending one is retried, and its retry finds the journaled transaction.
   */
  private async settleOnChain(
    request: SettleRequest,
    chain: ChainRail,
    payment: PaymentRequest,
    checked: CheckedPayment,
    onMoved: (moved: Moved) => void,
  ): Promise<{ result: SettleResponse; final: boolean }> {
    const pre = await chain.precheck(payment);
    if (pre.rejection) return { result: this.failure(request, pre.rejection), final: false };
    const sponsorship = await this.deps.sponsorship.decide(this.sponsored(checked, pre.feeWei));
    if (!sponsorship.sponsored) return { result: this.failure(request, reject(Reason.sponsorshipDeclined, sponsorship.message)), final: false };
    const sent = await chain.settle(payment, checked);
    if ('rejection' in sent) return { result: this.failure(request, sent.rejection, sent.transaction), final: false };
    onMoved({ payment: checked, scheme: payment.scheme, circular: sponsorship.circular, transaction: sent.transaction });
    const { transfer } = checked;
    const named = request.sighting ? { resource: request.sighting.input.resource, listingId: request.sighting.listingId } : {};
    await this.deps.history?.record({ transaction: sent.transaction, network: transfer.network, scheme: payment.requirements.scheme, payer: checked.payer, payTo: transfer.to, asset: transfer.asset, amount: transfer.amount, ...named });
    await this.deps.sponsorship.record(this.sponsored(checked, sent.feeWei), sponsorship.circular).catch((err: Error) => this.deps.logger.warn('sponsorship record failed', { err: err.message }));
    const amount = checked.transfer.amount.toString();
    return { result: { success: true, payer: checked.payer, transaction: sent.transaction, network: request.wireNetwork, amount }, final: true };
  }

  /** The transaction a still-pending duplicate names: the journaled one on chain, the ledger's derived hash otherwise. */
  private async pendingTransaction(request: SettleRequest, hash: string): Promise<string> {
    const payment = request.payment;
    if (payment instanceof Rejection) return settlementTransaction(hash);
    const chain = this.railOf(payment);
    if (!chain) return settlementTransaction(hash);
    const checked = this.check(request, 'settle').outcome;
    return checked instanceof Rejection ? '' : chain.journaled(checked).catch(() => '');
  }

  /** A settlement that moved value: credited to the listing it paid, if any (its Bazaar outcome). */
  private observeSettlement(request: SettleRequest, moved: Moved, amount: string | undefined): Promise<BazaarOutcome> | undefined {
    const { sighting, payment } = request;
    if (!sighting || payment instanceof Rejection) return undefined;
    const { transfer, payer } = moved.payment;
    const paid = { scheme: payment.requirements.scheme, network: transfer.network, asset: transfer.asset, payTo: transfer.to, amount: transfer.amount };
    // The amount a metered scheme (upto) actually settled feeds the listing's median beside its ceiling.
    const settledAmount = moved.scheme.metered ? amount : undefined;
    const transaction = moved.transaction ? { transaction: moved.transaction } : {};
    return this.deps.traffic.settled(sighting, { payer, paid, ...(settledAmount !== undefined ? { settledAmount } : {}), ...transaction, circular: moved.circular }).catch((err: Error) => {
      this.deps.logger.warn('settlement crediting failed', { listingId: sighting.listingId, err: err.message });
      return { status: 'rejected' as const, rejectedReason: 'the catalog could not be read; the next payment retries' };
    });
  }

  /**
   * A verification counts toward the rejection rate only as an attempt to pay the listing's seller
   * its price by a payer that could have paid it (a refusal carries `payer` only after its signature
   * was recovered, and only when the payment would have moved value to someone else; the
   * facilitator's own refusals carry none). A valid one of an unlisted resource asks for its probe.
   */
  private observeVerify(request: FacilitatorRequest, payment: PaymentRequest | undefined, outcome: Rejection | CheckedPayment, balance: bigint | undefined): Promise<BazaarOutcome> | undefined {
    const payer = outcome.payer;
    const sighting = request.sighting;
    if (!payer || !payment || !sighting) return undefined;
    const { scheme, network, asset, payTo, amount } = payment.requirements;
    return this.deps.traffic.verified(sighting, {
      payer,
      asked: { scheme, network, asset: asset.toLowerCase(), payTo, amount },
      valid: !(outcome instanceof Rejection),
      balance: async () => balance ?? (await this.deps.ledger.balance(network, asset, payer)),
    });
  }
}
