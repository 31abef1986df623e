/**
 * `invalidReason` / `errorReason` codes. The values below are the v1 strings (the `x402` package's
 * ErrorReasons and the older `@x402/evm` scheme constants), which v1 requests get. v2 requests get
 * the names `@x402/evm` 2.27 uses where it renamed them (each scheme's `v2ReasonNames`, applied by
 * `wireReason` in paymentSchemes.ts), so x402 clients
 * and sellers of either generation recognise them (docs/facilitator.md "invalidReason / errorReason
 * codes"). The service adds none of its own except where x402 has no equivalent (marked).
 */
export const Reason = {
  /** The payload does not have the scheme's shape (missing fields, non-hex signature, ...). */
  invalidPayload: 'invalid_payload',
  /** The payment requirements are unusable (no asset / payTo / amount, bad address). */
  invalidPaymentRequirements: 'invalid_payment_requirements',
  /** x402Version is neither 1 nor 2, or the payload's version differs from the request's. */
  invalidX402Version: 'invalid_x402_version',
  invalidScheme: 'invalid_scheme',
  /** The payload's scheme differs from the requirements' (v2: the scheme's own code). */
  schemeMismatch: 'scheme_mismatch',
  invalidNetwork: 'invalid_network',
  /** The payload's network differs from the requirements' (v2: the scheme's own code). */
  networkMismatch: 'network_mismatch',
  // exact (EIP-3009 transferWithAuthorization)
  exactSignature: 'invalid_exact_evm_payload_signature',
  exactRecipientMismatch: 'invalid_exact_evm_payload_recipient_mismatch',
  exactValue: 'invalid_exact_evm_payload_authorization_value',
  /** authorization.value is 0: a zero-value payment pays for nothing (v1 has one code for both). */
  exactZeroValue: 'exact_zero_value',
  exactValidAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  exactValidBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  exactNonceUsed: 'invalid_exact_evm_nonce_already_used',
  exactMissingDomain: 'invalid_exact_evm_missing_eip712_domain',
  /** On a chain: @x402/evm's simulation of the transfer reverted for a reason it does not name. */
  exactSimulationFailed: 'invalid_exact_evm_transaction_simulation_failed',
  /** On a chain: the transfer was sent and failed (reverted, or the node refused it). */
  exactTransactionFailed: 'invalid_exact_evm_transaction_failed',
  // upto (Permit2 witness transfer)
  permit2Signature: 'invalid_permit2_signature',
  permit2RecipientMismatch: 'invalid_permit2_recipient_mismatch',
  permit2Spender: 'invalid_permit2_spender',
  permit2TokenMismatch: 'permit2_token_mismatch',
  permit2AmountMismatch: 'permit2_amount_mismatch',
  permit2DeadlineExpired: 'permit2_deadline_expired',
  permit2NotYetValid: 'permit2_not_yet_valid',
  permit2NonceUsed: 'permit2_invalid_nonce',
  /** A permit whose ceiling is 0 authorizes nothing (@x402/evm's name for the proxy's InvalidAmount). */
  permit2InvalidAmount: 'permit2_invalid_amount',
  /** On a chain: the payer's token allowance to Permit2 does not cover the amount (the one-time approval is missing). */
  permit2AllowanceRequired: 'permit2_allowance_required',
  /** On a chain: @x402/evm's simulation of the Permit2 transfer reverted for a reason it does not name. */
  permit2SimulationFailed: 'permit2_simulation_failed',
  uptoFacilitatorMismatch: 'upto_facilitator_mismatch',
  /** On a chain: the upto transfer was sent and failed (reverted, or the node refused it). */
  uptoTransactionFailed: 'invalid_upto_evm_transaction_failed',
  uptoSettlementExceedsAmount: 'invalid_upto_evm_payload_settlement_exceeds_amount',
  // both schemes
  insufficientFunds: 'insufficient_funds',
  /** (service) payTo is the payer: a payment to oneself moves nothing and proves no demand (x402 has no code). */
  selfPayment: 'invalid_self_payment',
  /**
   * (service) On a chain: paying this settlement's gas would take the facilitator's account below
   * SPONSOR_FLOOR_WEI, so settlement stopped before it runs dry (alert: facilitator_sponsor_below_floor).
   */
  sponsorBelowFloor: 'sponsor_below_floor',
  /**
   * (service) The fee sponsor does not pay for this settlement (src/facilitator/sponsorship.ts: below
   * the sponsored minimum, a payer's or payee's daily fee budget spent, value going in circles): the
   * facilitator's refusal, never counted against a listing. Nothing was charged.
   */
  sponsorshipDeclined: 'sponsorship_declined',
  /** (service) A duplicate of a settlement still in progress did not see its result in time. */
  settlementPending: 'settlement_pending',
  /** (service) This payload was settled with other payment requirements; its receipt answers only those. */
  settlementRequirementsMismatch: 'settlement_requirements_mismatch',
} as const;

export type ReasonCode = (typeof Reason)[keyof typeof Reason];

/**
 * Human-readable companion of a code, sent as invalidMessage / errorMessage. `payer` is set when the
 * signature was recovered before the payment was refused and the payment would have moved value to
 * someone else: the rejection provably comes from that wallet, which is what lets it count toward a
 * listing's rejection rate (docs/facilitator.md "Signals"). Zero-value and self-payments carry none.
 */
export class Rejection {
  constructor(readonly reason: ReasonCode, readonly message: string, readonly payer?: string) {}
}

export function reject(reason: ReasonCode, message: string, payer?: string): Rejection {
  return new Rejection(reason, message, payer);
}
