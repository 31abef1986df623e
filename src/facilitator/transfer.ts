/**
 * What a checked payment moves, in the facilitator's own terms (a scheme's check produces it; the
 * payer limits, the sponsorship policy, the signals and the chain journal's identity read it).
 */
export interface Transfer {
  /** CAIP-2 */
  network: string;
  asset: string;
  from: string;
  to: string;
  /** Smallest unit of the asset: the authorized value (exact) or the amount charged (upto). */
  amount: bigint;
  /** Where the nonce lives: EIP-3009 nonces are per token and authorizer, Permit2 nonces per owner. */
  nonceSpace: string;
  nonce: string;
  /** Epoch seconds after which the authorization cannot be settled (EIP-3009 validBefore, Permit2 deadline). */
  validBefore: bigint;
}
