/**
 * Which listing a payment is evidence for (issue 43; DECISIONS.md "Evidence"). The resource a
 * /verify or /settle payload names is the buyer's unsigned claim: anyone can pay their own second
 * wallet and name a competitor's URL. What the signature does cover is the transfer: its recipient,
 * asset, network and amount. So a payment counts for a listing only when it paid that listing's
 * seller: its recipient is a `payTo` of one of the listing's payment options for that scheme,
 * network and asset, and it paid the listed price (`exact`: at least the amount) or used the listed
 * ceiling (`upto`: more than 0, at most the ceiling). A rejection counts against a listing only when
 * it was such a payment attempt from a payer whose balance could have paid it. Pure: the facilitator
 * applies it where it credits traffic to a listing, the pending-credit resolver where a probe lists
 * the resource a settlement named.
 */
import type { Payment } from '../shapes/listing.js';
import type { AcceptedPayment } from '../shapes/listingInput.js';

/** What a payment moved (settle) or would move (verify), as its checked transfer says. */
export interface PaidTerms {
  scheme: string;
  /** CAIP-2 */
  network: string;
  asset: string;
  /** The transfer's recipient. */
  payTo: string;
  /** Smallest unit: what moved (`exact`: the authorized value; `upto`: the amount charged). */
  amount: bigint;
}

/** The payment options a listing declares (its stored document's `payment` and `accepts`). */
export interface ListedTerms {
  payment: Payment;
  accepts?: AcceptedPayment[];
}

export type Credit = { counts: true } | { counts: false; reason: string };

const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

function amountOf(value: string): bigint | undefined {
  return /^[0-9]{1,78}$/.test(value) ? BigInt(value) : undefined;
}

/** The listing's options for the payment's scheme, network and asset that name its recipient. */
function optionsPaying(listing: ListedTerms, paid: PaidTerms): Array<Payment | AcceptedPayment> {
  return [listing.payment, ...(listing.accepts ?? [])].filter(
    (option) => option.scheme === paid.scheme && option.network === paid.network && same(option.asset, paid.asset) && same(option.payTo, paid.payTo),
  );
}

/** Whether `amount` is a price the option is paid at: the price or more (`exact`), within the ceiling (`upto`). */
function paysOption(option: Payment | AcceptedPayment, amount: bigint): boolean {
  const listed = amountOf(option.amount);
  if (listed === undefined || amount <= 0n) return false;
  return option.scheme === 'upto' ? amount <= listed : amount >= listed;
}

const short = (address: string) => (address.length > 14 ? `${address.slice(0, 8)}…${address.slice(-4)}` : address);

/** Whether a settlement (or a valid payment about to be settled) counts for the listing, and why not. */
export function settlementCredit(listing: ListedTerms, paid: PaidTerms): Credit {
  const options = optionsPaying(listing, paid);
  if (options.length === 0) {
    return {
      counts: false,
      reason: `it paid ${short(paid.payTo)}, which the listing does not name as payTo for ${paid.scheme} on ${paid.network} in ${short(paid.asset)}: the resource a payment names is the buyer's claim, so it counts for nothing`,
    };
  }
  if (options.some((option) => paysOption(option, paid.amount))) return { counts: true };
  const listed = options[0]!;
  return {
    counts: false,
    reason:
      listed.scheme === 'upto'
        ? `it charged ${paid.amount}, outside the listed ceiling of ${listed.amount} (more than 0, at most the ceiling): it counts for nothing`
        : `it paid ${paid.amount}, below the listed price of ${listed.amount}: it counts for nothing`,
  };
}

/**
 * Whether a refused payment counts against the listing's rejection rate: it was an attempt to pay
 * this listing's seller its price (as settlementCredit reads the requirements it was refused
 * under), by a payer holding enough of the asset to have paid it. Junk from wallets that hold
 * nothing, or refusals of payments to somebody else, sink nobody's rate.
 */
export function rejectionCounts(listing: ListedTerms, asked: PaidTerms, payerBalance: bigint): Credit {
  const credit = settlementCredit(listing, asked);
  if (!credit.counts) return credit;
  // `exact`: the listed price; `upto`: the amount asked (the payer must hold what it authorizes to be charged).
  const price = asked.scheme === 'upto'
    ? asked.amount
    : optionsPaying(listing, asked)
        .filter((option) => paysOption(option, asked.amount))
        .map((option) => amountOf(option.amount) ?? 0n)
        .reduce((a, b) => (b < a ? b : a));
  return payerBalance >= price && payerBalance > 0n ? { counts: true } : { counts: false, reason: 'the payer could not have paid the listed price' };
}
