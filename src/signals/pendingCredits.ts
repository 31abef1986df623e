/**
 * Credits the settlements that named a resource before it was listed (issue 43). Traffic never
 * writes a listing: a settlement naming an unlisted resource queues its probe and waits here
 * (store/redis/pendingCredits.ts). Told of every applied catalog write (an AppliedWritesObserver
 * beside the change log's), this takes what waits for each listing a probe, a publish or an import
 * just wrote, and counts each settlement the listing's own payment options say paid its seller
 * (settlementEvidence.ts); the others count for nothing. So a real seller's first sale still counts
 * once its 402 lists it, and a payment to somebody else naming its URL never does.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import type { AppliedWrite, AppliedWritesObserver } from '../store/catalogOperations.js';
import type { ListingDocument } from '../store/listingDocument.js';
import type { PendingCreditBounds, PendingCredits } from '../store/redis/pendingCredits.js';
import type { SignalRecorder } from './counters.js';
import { settlementCredit } from './settlementEvidence.js';

/** Settlements kept per listing, listings kept, and for how long: a probe runs within seconds, a busy one within minutes. */
export const PENDING_CREDITS: PendingCreditBounds = { perListing: 16, listings: 5000, ttlMs: 15 * 60_000 };

export class PendingCreditResolver implements AppliedWritesObserver {
  constructor(
    private readonly pending: Pick<PendingCredits, 'take'>,
    private readonly signals: Pick<SignalRecorder, 'recordSettle'>,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  async applied(writes: AppliedWrite[]): Promise<void> {
    const listed = new Map<string, ListingDocument>();
    for (const { operation } of writes) {
      // What traffic wrote before issue 43 (still in a stream) is no evidence of whose the resource is.
      if (operation.op === 'upsert' && !operation.doc.removed && operation.doc.source !== 'traffic') listed.set(operation.id, operation.doc);
    }
    if (listed.size === 0) return;
    try {
      await this.credit(listed);
    } catch (err) {
      // Housekeeping of signals: never a reason to hold the catalog's writes up.
      this.logger.warn('pending settlement credits failed', { err: (err as Error).message });
    }
  }

  /**
   * Takes what waits for these listed documents and counts what paid their sellers. Also called by
   * the facilitator right after it left a settlement waiting, in case the write that lists the
   * resource was applied in between (whoever takes a settlement first credits it; nobody twice).
   */
  async credit(listed: ReadonlyMap<string, Pick<ListingDocument, 'payment' | 'accepts'>>): Promise<void> {
    const waiting = await this.pending.take([...listed.keys()], this.clock());
    for (const [listingId, credits] of waiting) {
      const doc = listed.get(listingId)!;
      for (const credit of credits) {
        const verdict = settlementCredit(doc, { ...credit, amount: BigInt(credit.amount) });
        if (verdict.counts) await this.signals.recordSettle(listingId, credit.payer, credit.settledAmount, credit.transaction);
        else this.logger.debug('pending settlement not credited', { listingId, reason: verdict.reason });
      }
    }
  }
}
