import type { Transfer } from '../store/redis/ledger.js';

export type { Transfer };

export interface AcceptedPayment {
  payer: string;
  transfer: Transfer;
}

/** `verify` checks the price against the authorization; `settle` (upto) charges the requirements amount. */
export type CheckMode = 'verify' | 'settle';
