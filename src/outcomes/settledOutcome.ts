/**
 * The facilitator's one hook into paid outcomes: a settlement credited to a listing (it moved
 * value, paid one of the listing's payTo at its price, and did not return to where it came from:
 * facilitator/trafficCredit.ts), as the outcome recorder reads it: its payer, the listing, the
 * payTo it paid, and every payTo of the listing (a payer among them pays itself). Its own module,
 * so that how a settlement is credited and how it is linked to a search change apart.
 */
import type { SettledOutcome } from './outcomeRecorder.js';

export type { OutcomeRecorder } from './outcomeRecorder.js';

/** What the credited listing names as its sellers (a stored listing document). */
export interface PaidListing {
  payment?: { payTo?: string | undefined } | undefined;
  accepts?: ReadonlyArray<{ payTo?: string | undefined }> | undefined;
}

export function settledOutcome(listingId: string, listing: PaidListing, payer: string, payTo: string): SettledOutcome {
  const payTos = [listing.payment?.payTo, ...(listing.accepts ?? []).map((a) => a.payTo), payTo].filter((p): p is string => typeof p === 'string');
  return { payer, listingId, payTo, payTos: [...new Set(payTos)] };
}
