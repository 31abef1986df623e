/**
 * What the facilitator asks the chain (issue 44), for a scheme that settles there (`chainPayment`:
 * exact, upto): at /verify the payer's balance, the authorization's state (EIP-3009's
 * authorizationState, Permit2's nonce bitmap) and Permit2's allowance read from the chain, the
 * sponsor's floor, then @x402/evm's own verification and simulation; at /settle the transfer sent
 * once per authorization (store/evm/chainAdapter.ts: journal before broadcast, one sender per key).
 * The trust gates stay the service's (request shape, signature, payer limits, sponsorship, evidence),
 * in front of this; what the chain answers becomes the service's refusal codes.
 */
import type { ChainAdapter } from '../store/evm/chainAdapter.js';
import { PERMIT2_ADDRESS } from './uptoScheme.js';
import type { CheckedPayment, PaymentRequest, PaymentScheme } from './payment.js';
import { Reason, Rejection, reject } from './reasons.js';
import { DomainError, Unavailable } from '../core/errors.js';

/** A chain call that failed for want of an answer (node down, RPC timeout): 503, retry; nothing was charged. */
async function reachable<T>(network: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw new Unavailable('facilitator', `the chain node of ${network} did not answer (${(err as Error).message.split('\n')[0]}); retry with the same payload`, 5);
  }
}

/** @x402/evm's refusals (either scheme's), as the service's codes (so v1 and v2 clients get the names they know). */
function fromChain(scheme: PaymentScheme, reason: string, payer: string, message?: string): Rejection {
  const detail = message ? `: ${message.slice(0, 300)}` : '';
  const { simulationFailed, transactionFailed } = scheme.chainFailures;
  if (reason.endsWith('_insufficient_balance')) return reject(Reason.insufficientFunds, `the payer balance on chain does not cover the amount${detail}`, payer);
  if (reason.endsWith('_nonce_already_used') || reason === Reason.permit2NonceUsed) return scheme.nonceUsed(payer);
  if (reason.endsWith('_valid_before') || reason === Reason.permit2DeadlineExpired) return scheme.expired(payer);
  if (reason.endsWith('_valid_after')) return reject(Reason.exactValidAfter, `the authorization is not valid yet${detail}`, payer);
  if (reason === Reason.permit2NotYetValid || reason === 'permit2_payment_too_early') return reject(Reason.permit2NotYetValid, `the permit is not valid yet${detail}`, payer);
  if (reason === Reason.permit2AllowanceRequired) return allowanceMissing(payer, detail);
  if (reason === Reason.permit2Signature) return reject(Reason.permit2Signature, `Permit2 does not accept the signature${detail}`, payer);
  if (reason.endsWith('_signature')) return reject(Reason.exactSignature, `the token does not accept the signature${detail}`, payer);
  if (reason === Reason.settlementPending) return reject(Reason.settlementPending, `the transaction is not mined yet; retry with the same payload${detail}`);
  if (reason.endsWith('_simulation_failed') || reason.startsWith('invalid_exact_evm_token_') || reason === 'asset_not_deployed_contract' || reason === 'permit2_proxy_not_deployed') {
    // The facilitator's simulation, not the payer's fault as far as anyone can tell: no payer, no rejection counted.
    return reject(simulationFailed, `the transfer would fail on chain (${reason})${detail}`);
  }
  return reject(transactionFailed, `the transfer failed on chain (${reason})${detail}`);
}

function allowanceMissing(payer: string, detail = ''): Rejection {
  return reject(Reason.permit2AllowanceRequired, `the payer has not approved Permit2 for this token (or not enough): approve Permit2 (${PERMIT2_ADDRESS}) once, then retry${detail}`, payer);
}

export interface ChainInspection {
  rejection?: Rejection;
  /** The payer's token balance on chain (signals: could it have paid). */
  balance: bigint;
  /** What this settlement's gas costs the sponsor now, in wei. */
  feeWei: bigint;
}

export class ChainRail {
  constructor(
    private readonly chain: ChainAdapter,
    private readonly floorWei: bigint,
    /** Called when the floor stops a payment: the alert counter. */
    private readonly stopped: (network: string) => void,
  ) {}

  get address(): string {
    return this.chain.address;
  }

  /** The networks the facilitator's key settles on: the only ones offered. */
  networks(): string[] {
    return this.chain.networks();
  }

  /** A payer's token balance on chain (signals: could a refused payer have paid). */
  balance(network: string, asset: string, owner: string): Promise<bigint> {
    return reachable(network, this.chain.tokenBalance(network, asset, owner));
  }

  /** /verify's chain reads: nonce, balance, Permit2 allowance, floor, then the x402 simulation. */
  async inspect(request: PaymentRequest, payment: CheckedPayment): Promise<ChainInspection> {
    const scheme = request.scheme;
    const wire = scheme.chainPayment(request);
    const [state, feeWei, floor] = await reachable(wire.network, Promise.all([this.chain.state(wire), this.chain.feeEstimate(wire), this.floor(wire.network)]));
    const { balance } = state;
    const { transfer, payer } = payment;
    if (state.nonceUsed) return { rejection: scheme.nonceUsed(payer), balance, feeWei };
    if (balance < transfer.amount) return { rejection: reject(Reason.insufficientFunds, `balance ${balance} is below ${transfer.amount}`, payer), balance, feeWei };
    if (state.allowance !== undefined && state.allowance < transfer.amount) return { rejection: allowanceMissing(payer), balance, feeWei };
    const stop = floor(feeWei);
    if (stop) return { rejection: stop, balance, feeWei };
    const verdict = await reachable(wire.network, this.chain.simulate(wire));
    return verdict.ok ? { balance, feeWei } : { rejection: fromChain(scheme, verdict.reason, payer, verdict.message), balance, feeWei };
  }

  /** The fee a settlement would cost now, and the floor's refusal if paying it would cross SPONSOR_FLOOR_WEI. */
  async precheck(request: PaymentRequest): Promise<{ feeWei: bigint; rejection?: Rejection }> {
    const wire = request.scheme.chainPayment(request);
    const [feeWei, floor] = await reachable(wire.network, Promise.all([this.chain.feeEstimate(wire), this.floor(wire.network)]));
    const rejection = floor(feeWei);
    return rejection ? { feeWei, rejection } : { feeWei };
  }

  /**
   * Sends (or reconciles) the authorization's one transfer and waits for its receipt. `feeWei` is
   * the gas the facilitator's account paid, also for a transaction mined and reverted.
   */
  async settle(request: PaymentRequest, payment: CheckedPayment): Promise<{ transaction: string; feeWei: bigint } | { rejection: Rejection; transaction: string; feeWei: bigint }> {
    // A journaled transaction survives a failure here: the retry reconciles it (chainAdapter.ts).
    const wire = request.scheme.chainPayment(request);
    const outcome = await reachable(wire.network, this.chain.settle(wire));
    if (outcome.ok) return { transaction: outcome.transaction, feeWei: outcome.feeWei };
    const { transaction, feeWei } = outcome;
    // @x402/evm's upto diagnosis of a failed simulation reads balance and allowance, not Permit2's
    // nonce bitmap: a used nonce (a journal entry long expired) is named from the chain here.
    if (outcome.reason.endsWith('_simulation_failed') && (await this.chain.state(wire).catch(() => undefined))?.nonceUsed) {
      return { rejection: request.scheme.nonceUsed(payment.payer), transaction, feeWei };
    }
    return { rejection: fromChain(request.scheme, outcome.reason, payment.payer, outcome.message), transaction, feeWei };
  }

  /** The hash journaled for the request's authorization, if any (a duplicate still pending names it). */
  async journaled(request: PaymentRequest): Promise<string> {
    return (await this.chain.journaled(this.chain.key(request.scheme.chainPayment(request)))) ?? '';
  }

  sponsorBalance(network: string): Promise<bigint> {
    return this.chain.sponsorBalance(network);
  }

  private async floor(network: string): Promise<(feeWei: bigint) => Rejection | undefined> {
    const balance = await this.chain.sponsorBalance(network);
    return (feeWei) => {
      if (balance - feeWei >= this.floorWei) return undefined;
      this.stopped(network);
      return reject(
        Reason.sponsorBelowFloor,
        `the facilitator's account (${this.chain.address}) holds ${balance} wei; paying this settlement's gas (~${feeWei} wei) would take it below its floor of ${this.floorWei} wei (SPONSOR_FLOOR_WEI): settlement stopped until it is funded; nothing was charged`,
      );
    };
  }
}
