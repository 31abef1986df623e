/**
 * Recording and reading the listing signals: a settlement or a verification (valid or refused)
 * counts in the listing's rolling 7-day window, and one payer's weight is bounded: per listing and
 * UTC day, a payer's first `payerDailyCap` settlements and first `payerDailyCap` verifications
 * count, the rest do not (docs/facilitator.md "Signals"). Who may count at all (value moved, payer
 * not the payTo, a signature and a funded wallet behind a rejection) is the facilitator's decision;
 * it holds this as a SignalRecorder.
 */
import { systemClock, type Clock } from '../core/clock.js';
import type { SignalCounter, SignalEventKind, SignalStore } from '../store/redis/signalStore.js';
import {
  amountsSince,
  DEFAULT_PAYER_DAILY_CAP,
  eventSlot,
  lastSettledTtlSeconds,
  MEDIAN_SAMPLES,
  PAYER_RETENTION,
  signalDays,
  signalsOfWindow,
  type FlushedSignals,
} from './window.js';

/** What the facilitator records; each resolves false when the payer's daily cap left the event uncounted. */
export interface SignalRecorder {
  /** A verification by `payer`: toward the rejection rate's denominator, and when refused also toward its numerator. */
  recordVerify(listingId: string, payer: string, valid: boolean): Promise<boolean>;
  /**
   * A settlement paid by `payer`; lastSettled moves even past the payer's daily cap. `settledAmount`:
   * the amount a metered scheme (`upto`) actually settled (feeds `medianSettledAmount7d`).
   */
  recordSettle(listingId: string, payer: string, settledAmount?: string, transaction?: string): Promise<boolean>;
}

export class SignalCounters implements SignalRecorder {
  constructor(
    private readonly store: SignalStore,
    private readonly clock: Clock = systemClock,
    private readonly payerDailyCap = DEFAULT_PAYER_DAILY_CAP,
  ) {}

  recordVerify(listingId: string, payer: string, valid: boolean): Promise<boolean> {
    return this.record(listingId, payer, 'verify', valid ? ['verify'] : ['verify', 'reject']);
  }

  recordSettle(listingId: string, payer: string, settledAmount?: string, transaction?: string): Promise<boolean> {
    return this.record(listingId, payer, 'settle', ['settle'], settledAmount, transaction);
  }

  private record(listingId: string, payer: string, kind: SignalEventKind, counters: SignalCounter[], settledAmount?: string, transaction?: string): Promise<boolean> {
    const now = this.clock();
    return this.store.record({
      listingId,
      payer: payer.toLowerCase(),
      kind,
      counters,
      payerDailyCap: this.payerDailyCap,
      ...eventSlot(now),
      lastSettled: kind === 'settle' ? { at: new Date(now).toISOString(), ttlSeconds: lastSettledTtlSeconds() } : undefined,
      amount: settledAmount === undefined ? undefined : { value: settledAmount, at: now, since: amountsSince(now), maxSamples: MEDIAN_SAMPLES },
      payers: kind === 'settle' ? PAYER_RETENTION : undefined,
      ...(transaction ? { transaction } : {}),
    });
  }

  /** The `signals` block (without health) of several listings as of the clock's now, with the first settlement (for provenance). */
  async read(listingIds: string[]): Promise<Map<string, FlushedSignals>> {
    const now = this.clock();
    const stored = await this.store.read(listingIds, amountsSince(now), signalDays(now));
    const out = new Map<string, FlushedSignals>();
    const expired: Array<{ listingId: string; counter: SignalCounter; hours: string[] }> = [];
    const expiredDays: Array<{ listingId: string; days: string[] }> = [];
    for (const [listingId, window] of stored) {
      const read = signalsOfWindow(window, now);
      out.set(listingId, read.signals);
      for (const e of read.expired) expired.push({ listingId, ...e });
      if (read.expiredDays.length > 0) expiredDays.push({ listingId, days: read.expiredDays });
    }
    // Pruning is housekeeping: the window sums above already ignore old hours and days.
    if (expired.length > 0) await this.store.dropHours(expired);
    if (expiredDays.length > 0) await this.store.dropDays(expiredDays);
    return out;
  }

  /** Takes up to `max` listings whose counters changed since they were last flushed. */
  takeDirty(max: number): Promise<string[]> {
    return this.store.takeDirty(max);
  }

  markDirty(listingIds: string[]): Promise<void> {
    return this.store.markDirty(listingIds);
  }

  /**
   * Listings whose counts fell because a bucket left the window since the last call (at most `max`
   * buckets per call); they need a flush even without new traffic.
   */
  aged(max = 1000): Promise<string[]> {
    return this.store.takeAged(this.clock(), max);
  }
}
