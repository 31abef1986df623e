/** What a valid payment would move on the ledger, produced by a scheme check. */
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
}

export interface AcceptedPayment {
  payer: string;
  transfer: Transfer;
}

/** `verify` checks the price against the authorization; `settle` (upto) charges the requirements amount. */
export type CheckMode = 'verify' | 'settle';
