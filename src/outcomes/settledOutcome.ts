/**
 * The facilitator's one hook into paid outcomes: a settlement that moved value, as the outcome
 * recorder reads it (its payer, the listing, the payTo it paid, and every payTo of the listing: a
 * payer among them pays itself). Its own module so that how a settlement is credited to a
 * listing (the facilitator's evidence rules) and how it is linked to a search change apart.
 */
import type { ListingInput } from '../shapes/listingInput.js';
import type { SettledOutcome } from './outcomeRecorder.js';

export type { OutcomeRecorder } from './outcomeRecorder.js';

/** What the facilitator knows of the paid listing (a TrafficSighting). */
export interface PaidListing {
  listingId: string;
  input: ListingInput;
  accept: { payTo?: string | undefined };
}

/** The outcome of a settlement; undefined when the paid option names no payTo (nothing to check it against). */
export function settledOutcome(paid: PaidListing, payer: string): SettledOutcome | undefined {
  if (paid.accept.payTo === undefined) return undefined;
  const input = paid.input as { payment?: { payTo?: string }; accepts?: Array<{ payTo?: string }> };
  const payTos = [input.payment?.payTo, ...(input.accepts ?? []).map((a) => a.payTo), paid.accept.payTo].filter((p): p is string => typeof p === 'string');
  return { payer, listingId: paid.listingId, payTo: paid.accept.payTo, payTos };
}
