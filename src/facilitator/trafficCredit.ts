/**
 * Where a payment is credited to a listing (issue 43; DECISIONS.md "Evidence"). The listing a
 * /verify or /settle payload names is the buyer's claim; the listing's own payment options decide
 * whether the payment paid its seller (src/signals/settlementEvidence.ts):
 * - a settlement of a listed resource counts (settleCount7d, lastSettled, payers) only when it paid
 *   one of the listing's payTo at its price, and then marks the listing seen; anything else settled
 *   (it is a valid payment) but moves nothing, and the Bazaar outcome says why;
 * - a settlement of an unlisted resource queues its probe and waits (store/redis/pendingCredits.ts)
 *   until the probe lists it: it counts then if the listing's 402 names the payTo it paid;
 * - a payment that returned value to where it came from (the sponsorship policy's verdict) is no
 *   demand at all;
 * - a verification counts toward the rejection rate only as an attempt to pay that listing's seller
 *   its price, from a payer that could have paid it (a valid one, and a refused one alike).
 * Best effort: counting never changes or delays the payment's answer beyond one listing read.
 */
import type { CatalogReader } from '../catalog/reader.js';
import type { Clock } from '../core/clock.js';
import { LruCache } from '../core/lruCache.js';
import type { Logger } from '../logger.js';
import type { SignalRecorder } from '../signals/counters.js';
import { rejectionCounts, settlementCredit, type PaidTerms } from '../signals/settlementEvidence.js';
import type { ListingDocument } from '../store/listingDocument.js';
import type { PendingCredits } from '../store/redis/pendingCredits.js';
import type { PendingCreditResolver } from '../signals/pendingCredits.js';
import type { BazaarOutcome } from '../x402/wire.js';
import { settledOutcome, type OutcomeRecorder } from '../outcomes/settledOutcome.js';
import { rejected, type TrafficCataloger } from './trafficCatalog.js';
import type { TrafficSighting } from './trafficSighting.js';

/** A listing's terms are read at most this often per process (a paid-for listing is read on every payment otherwise). */
const TERMS_FRESH_MS = 2000;

export interface SettledPayment {
  payer: string;
  paid: PaidTerms;
  /** The amount a metered scheme (upto) settled: the listing's median. */
  settledAmount?: string;
  /** The on-chain transaction that settled it: provenance.settled carries it. */
  transaction?: string;
  /** The sponsorship policy found the value returning to where it came from: not demand. */
  circular: boolean;
}

export interface VerifiedPayment {
  payer: string;
  /** What the payment would move, under the requirements it was verified against. */
  asked: PaidTerms;
  valid: boolean;
  /** The payer's balance of the asset (known at /verify when its checks got that far). */
  balance: () => Promise<bigint>;
}

export interface TrafficCreditDeps {
  reader: CatalogReader;
  signals: SignalRecorder;
  pending: Pick<PendingCredits, 'add'>;
  /** Credits what waits for a listing that turns out to be listed after all (the same rule as the write observer). */
  resolver: Pick<PendingCreditResolver, 'credit'>;
  cataloger: TrafficCataloger;
  logger: Logger;
  clock: Clock;
  /** Paid outcomes (src/outcomes): a credited settlement links the payer's recent searches to the listing. */
  outcomes?: Pick<OutcomeRecorder, 'settled'>;
}

export class TrafficCredit {
  private readonly terms = new LruCache<{ at: number; doc: Promise<ListingDocument | undefined> }>(10_000);

  constructor(private readonly deps: TrafficCreditDeps) {}

  /** A settlement that moved value: what it counts for, as the Bazaar outcome the seller is told. */
  async settled(sighting: TrafficSighting, payment: SettledPayment): Promise<BazaarOutcome> {
    const listing = await this.listing(sighting.listingId);
    if (listing && !listing.removed) {
      if (payment.circular) return rejected('settled, but the value returned to where it came from within the sponsorship window: it is not counted as demand');
      const credit = settlementCredit(listing, payment.paid);
      if (!credit.counts) return rejected(`settled, but ${credit.reason}`);
      this.count(sighting.listingId, () => this.deps.signals.recordSettle(sighting.listingId, payment.payer, payment.settledAmount, payment.transaction));
      // The same evidence as the demand it counts for: only a settlement credited to the listing links a search to it.
      const outcomes = this.deps.outcomes;
      if (outcomes) this.count(sighting.listingId, () => outcomes.settled(settledOutcome(sighting.listingId, listing, payment.payer, payment.paid.payTo)));
      this.deps.cataloger.seen(sighting.listingId);
      return { status: 'success' };
    }
    // A listing removed as stale comes back through its probe; any other removal stays.
    if (listing?.removed && listing.removedReason !== 'stale') return rejected(`the listing was removed (${listing.removedReason ?? 'removed'}); a payment does not bring it back`);
    const outcome = await this.deps.cataloger.probe(sighting);
    if (outcome.status === 'processing' && !payment.circular) await this.wait(sighting.listingId, payment);
    return outcome;
  }

  /**
   * Leaves the settlement waiting for the write that lists its resource, then looks once more: if
   * that write was applied meanwhile (its observer found nothing waiting), the settlement is
   * credited here.
   */
  private async wait(listingId: string, payment: SettledPayment): Promise<void> {
    const { paid } = payment;
    try {
      await this.deps.pending.add(listingId, {
        payer: payment.payer.toLowerCase(),
        scheme: paid.scheme,
        network: paid.network,
        asset: paid.asset,
        payTo: paid.payTo,
        amount: paid.amount.toString(),
        ...(payment.settledAmount !== undefined ? { settledAmount: payment.settledAmount } : {}),
        ...(payment.transaction !== undefined ? { transaction: payment.transaction } : {}),
        at: this.deps.clock(),
      });
      const listed = await this.deps.reader.get(listingId);
      if (listed && !listed.removed) await this.deps.resolver.credit(new Map([[listingId, listed]]));
    } catch (err) {
      this.deps.logger.warn('a settlement could not be left waiting for its listing', { listingId, err: (err as Error).message });
    }
  }

  /**
   * A verification: counted toward the listing's rejection rate when it was an attempt to pay the
   * listing's seller from a payer that could have paid; a valid one of an unlisted resource asks
   * for its probe. Undefined (no outcome) for a refused one: the answer says it was refused.
   */
  verified(sighting: TrafficSighting, payment: VerifiedPayment): Promise<BazaarOutcome> | undefined {
    this.count(sighting.listingId, async () => {
      const listing = await this.listing(sighting.listingId);
      if (!listing || listing.removed) return;
      if (!rejectionCounts(listing, payment.asked, await payment.balance()).counts) return;
      await this.deps.signals.recordVerify(sighting.listingId, payment.payer, payment.valid);
    });
    if (!payment.valid) return undefined;
    return this.listing(sighting.listingId).then((listing) => (listing && !listing.removed ? { status: 'success' } : this.deps.cataloger.probe(sighting)));
  }

  /** The stored listing, read at most every TERMS_FRESH_MS (its payment terms change only with a probe, a publish or an import). */
  private listing(listingId: string): Promise<ListingDocument | undefined> {
    const now = this.deps.clock();
    const cached = this.terms.get(listingId);
    if (cached && now - cached.at < TERMS_FRESH_MS) return cached.doc;
    const entry = { at: now, doc: this.deps.reader.get(listingId) };
    // Only a listing is kept: a resource not listed yet may be any moment now (its probe is running),
    // and its next payment must see it at once rather than wait for a probe that already ran.
    const forget = () => {
      if (this.terms.get(listingId) === entry) this.terms.delete(listingId);
    };
    entry.doc.then((doc) => doc === undefined && forget(), forget);
    this.terms.set(listingId, entry);
    return entry.doc;
  }

  private count(listingId: string, work: () => Promise<unknown>): void {
    work().catch((err: unknown) => this.deps.logger.warn('signal counting failed', { listingId, err: (err as Error).message }));
  }
}
