/**
 * A payment as it travels through the facilitator: the normalized request a scheme checks, the
 * checked payment (payer and the transfer it authorizes), and the interface every payment scheme
 * implements (x402's own packages register a `SchemeNetworkFacilitator` the same way). A scheme is
 * one module (exactScheme.ts, uptoScheme.ts) listed once in paymentSchemes.ts; the service asks
 * the request's scheme and never branches on its name.
 */
import type { JsonObject } from '../core/json.js';
import type { Transfer } from './transfer.js';
import type { ChainPayment } from '../store/evm/chainAdapter.js';
import type { ReasonCode, Rejection } from './reasons.js';

export type { Transfer };

/** A /verify or /settle body with the outer shape checked, nothing inside it yet (request.ts). */
export interface RawFacilitatorRequest {
  x402Version: number;
  paymentPayload: JsonObject;
  paymentRequirements: JsonObject;
}

export interface Requirements {
  scheme: string;
  /** CAIP-2 */
  network: string;
  asset: string;
  payTo: string;
  /** Smallest unit; v1 `maxAmountRequired`. For `upto` at /settle: the actual amount to charge. */
  amount: bigint;
  maxTimeoutSeconds?: number;
  extra: JsonObject;
}

/** A well-formed request of a supported version, scheme and network, ready for its scheme's checks. */
export interface PaymentRequest {
  x402Version: 1 | 2;
  /** The network as the client wrote it (`base-sepolia` in v1), echoed in settle responses. */
  wireNetwork: string;
  requirements: Requirements;
  /** The scheme-specific part: `paymentPayload.payload`. */
  schemePayload: JsonObject;
  /** The registered scheme that checks it (requirements.scheme). */
  scheme: PaymentScheme;
}

/** A payment that passed its scheme's checks: the payer that provably signed it and what it moves. */
export interface CheckedPayment {
  payer: string;
  transfer: Transfer;
}

/** `verify` checks the price against the authorization; `settle` (upto) charges the requirements amount. */
export type CheckMode = 'verify' | 'settle';

export interface CheckContext {
  /** Now, in epoch seconds (validity windows). */
  nowSeconds: bigint;
  mode: CheckMode;
  /** This facilitator's address (upto permits must name it). */
  facilitatorAddress: string;
}

export interface PaymentScheme {
  /** The x402 scheme name, as `paymentRequirements.scheme` carries it. */
  readonly name: string;
  /** The x402 versions whose requests may use it. */
  readonly x402Versions: readonly number[];
  /** The `extra` of its /supported kind, if it has one (upto: the facilitator its permits must name). */
  supportedExtra(facilitatorAddress: string): Record<string, unknown> | undefined;
  /** The offline checks (shape, signature, recipient, amount, validity): the checked payment, or why not. */
  check(request: PaymentRequest, context: CheckContext): CheckedPayment | Rejection;
  /** The refusal when the chain shows the payment's nonce already used. */
  nonceUsed(payer?: string): Rejection;
  /** The refusal when the chain finds the authorization past its validity. */
  expired(payer?: string): Rejection;
  /** The payment as the chain settles it (store/evm/paymentKinds.ts), for a request check() passed. */
  chainPayment(request: PaymentRequest): ChainPayment;
  /** The codes of this scheme's chain failures @x402/evm does not name more precisely (a simulation, a sent transaction). */
  readonly chainFailures: { simulationFailed: ReasonCode; transactionFailed: ReasonCode };
  /** Whether a settlement charges metered use rather than the price: its amount feeds the listing's median settled amount. */
  readonly metered: boolean;
  /** The names @x402/evm's v2 facilitator gives some refusals of this scheme (paymentSchemes.ts wireReason). */
  readonly v2ReasonNames: Readonly<Partial<Record<ReasonCode, string>>>;
}

/** What every scheme's chain payment (`chainPayment`) takes from its requirements, and the signature. */
export function chainPaymentBase(request: PaymentRequest) {
  const { requirements, schemePayload } = request;
  return {
    network: requirements.network,
    asset: requirements.asset,
    payTo: requirements.payTo,
    maxTimeoutSeconds: requirements.maxTimeoutSeconds ?? 300,
    extra: requirements.extra,
    signature: schemePayload.signature as string,
  };
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const AMOUNT = /^[0-9]{1,78}$/;

export function parseAmount(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && AMOUNT.test(value)) return BigInt(value);
  return undefined;
}

export function isAddress(value: unknown): value is `0x${string}` {
  return typeof value === 'string' && ADDRESS.test(value);
}

/** EVM chain id of a CAIP-2 `eip155:<id>` network. */
export function chainIdOf(network: string): number {
  return Number(network.slice('eip155:'.length));
}
