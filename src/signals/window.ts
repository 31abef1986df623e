/**
 * The 7-day window of the listing signals, pure: where an event lands (its hour, its UTC day, how
 * long its bucket lives), which hours still count at a given time, the rejection rate and the
 * median settled amount. src/signals/counters.ts applies it to what the store holds.
 */
import type { Signals } from '../shapes/listing.js';
import type { PayerRetention, SignalCounter, SignalDays, StoredSignalWindow } from '../store/redis/signalStore.js';

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const WINDOW_HOURS = 7 * 24;
export const WINDOW_MS = WINDOW_HOURS * HOUR_MS;
/** Per listing and UTC day, a payer's first this-many settlements and verifications count (SIGNALS_PAYER_DAILY_CAP). */
export const DEFAULT_PAYER_DAILY_CAP = 10;
/** The median is taken over at most this many of the most recent settlements in the window. */
export const MEDIAN_SAMPLES = 1000;
/** lastSettled outlives the window (a listing settled 8 days ago still says when): 5 windows. */
const LAST_SETTLED_TTL_SECONDS = WINDOW_HOURS * 3600 * 5;
/** The long window of the Bazaar surface's `quality` (CDP's l30Days*): 30 UTC days. */
export const LONG_WINDOW_DAYS = 30;
/** The short window in whole UTC days: today and the 6 before, all inside the 7-day window. */
const SHORT_WINDOW_DAYS = 7;
/**
 * Payer evidence of a settlement (store/redis/signalStore.ts): first settlement kept a year past
 * the last one; the days' distinct payers and counts for the long window; per day the
 * TOP_PAYERS_KEPT largest payers by counted settlements (a payer counts at most the daily cap a
 * day, so the 7-day largest payer is among them unless many payers tie at the top).
 */
export const PAYER_RETENTION: PayerRetention = {
  firstSettledTtlSeconds: 400 * 24 * 3600,
  dayTtlSeconds: (LONG_WINDOW_DAYS + 1) * 24 * 3600,
  topPayersTtlSeconds: (SHORT_WINDOW_DAYS + 1) * 24 * 3600,
  topPayersKept: 16,
};

/** The UTC days the short (7) and long (30) windows read at `now`, newest first. */
export function signalDays(now: number): SignalDays {
  const today = Math.floor(now / DAY_MS);
  const back = (n: number) => Array.from({ length: n }, (_, k) => today - k);
  return { short: back(SHORT_WINDOW_DAYS), long: back(LONG_WINDOW_DAYS) };
}

/** Where an event at `now` (epoch ms) lands and how long what it writes must live. */
export interface EventSlot {
  hour: number;
  day: number;
  /** The newest bucket's remaining life in the window, relative so an injected clock never makes Redis drop buckets the window still counts. */
  bucketTtlSeconds: number;
  /** The payer's count of the day lives into the next day. */
  payerDayTtlSeconds: number;
  /** When the event's hour leaves the window. */
  leavesWindowAt: number;
}

export function eventSlot(now: number): EventSlot {
  const hour = Math.floor(now / HOUR_MS);
  const day = Math.floor(now / DAY_MS);
  return {
    hour,
    day,
    bucketTtlSeconds: Math.ceil(((hour + 1 + WINDOW_HOURS) * HOUR_MS - now) / 1000),
    payerDayTtlSeconds: Math.ceil(((day + 2) * DAY_MS - now) / 1000),
    leavesWindowAt: (hour + WINDOW_HOURS) * HOUR_MS,
  };
}

export const lastSettledTtlSeconds = (): number => LAST_SETTLED_TTL_SECONDS;

/** The first instant (exclusive) whose settled amounts still count at `now`. */
export const amountsSince = (now: number): number => now - WINDOW_MS;

/** The events of the window ending at `now` among `hour -> count` buckets, and the hours that left it. */
export function windowCount(buckets: Record<string, string>, now: number): { count: number; expired: string[] } {
  const hour = Math.floor(now / HOUR_MS);
  const oldestCounted = hour - WINDOW_HOURS + 1;
  let count = 0;
  const expired: string[] = [];
  for (const [field, value] of Object.entries(buckets)) {
    const bucketHour = Number(field);
    if (bucketHour < oldestCounted) expired.push(field);
    else if (bucketHour <= hour) count += Number(value);
  }
  return { count, expired };
}

/** Refused verifications over all verifications, 4 decimals; 0 when there was none. */
export function rejectionRate(rejects: number, verifies: number): number {
  return verifies === 0 ? 0 : Math.round((rejects / verifies) * 10_000) / 10_000;
}

/**
 * Median of settled amounts (integer strings) compared as integers (amounts exceed 2^53); for an
 * even count the lower middle one, so it is always an amount that was actually settled.
 */
export function medianAmount(amounts: string[]): string | undefined {
  const sorted = amounts.map((a) => BigInt(a)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.length === 0 ? undefined : sorted[Math.floor((sorted.length - 1) / 2)]!.toString();
}

/** A listing's signals as the flusher writes them: `firstSettled` goes to `provenance.settled.first`. */
export type FlushedSignals = Signals & { firstSettled?: string; firstTransaction?: string; lastTransaction?: string };

/**
 * The largest payer's share of the settlements the days' largest payers made, over the counted
 * settlements of the window (0 when none; at most 1: the days lie inside the window).
 */
export function largestPayerShare(topPayers: Array<Record<string, number>>, settled: number): number {
  if (settled === 0) return 0;
  const totals = new Map<string, number>();
  for (const day of topPayers) for (const [payer, count] of Object.entries(day)) totals.set(payer, (totals.get(payer) ?? 0) + count);
  const largest = Math.max(0, ...totals.values());
  return Math.min(1, Math.round((largest / settled) * 10_000) / 10_000);
}

/** Counted settlements of the long window's days, and the day fields older than it. */
function longWindowCount(settleDays: Record<string, string>, days: number[]): { count: number; expired: string[] } {
  const oldest = Math.min(...days);
  let count = 0;
  const expired: string[] = [];
  for (const [day, value] of Object.entries(settleDays)) {
    if (Number(day) < oldest) expired.push(day);
    else count += Number(value);
  }
  return { count, expired };
}

/** A listing's `signals` block (without health) from its stored window at `now`, and the hours and days to drop. */
export function signalsOfWindow(
  stored: StoredSignalWindow,
  now: number,
): { signals: FlushedSignals; expired: Array<{ counter: SignalCounter; hours: string[] }>; expiredDays: string[] } {
  const settles = windowCount(stored.buckets.settle, now);
  const verifies = windowCount(stored.buckets.verify, now);
  const rejects = windowCount(stored.buckets.reject, now);
  const signals: FlushedSignals = { settleCount7d: settles.count, rejectionRate7d: rejectionRate(rejects.count, verifies.count) };
  if (stored.lastSettled) signals.lastSettled = stored.lastSettled;
  if (stored.lastSettled && stored.firstSettled) signals.firstSettled = stored.firstSettled;
  if (stored.lastSettled && stored.firstTransaction) signals.firstTransaction = stored.firstTransaction;
  if (stored.lastSettled && stored.lastTransaction) signals.lastTransaction = stored.lastTransaction;
  const median = medianAmount(stored.amounts);
  if (median !== undefined) signals.medianSettledAmount7d = median;
  const long = longWindowCount(stored.settleDays, signalDays(now).long);
  if (long.count > 0 || stored.payersLong > 0) {
    signals.uniquePayers7d = stored.payersShort;
    signals.largestPayerShare7d = largestPayerShare(stored.topPayers, settles.count);
    signals.settleCount30d = long.count;
    signals.uniquePayers30d = stored.payersLong;
  }
  const expired = [
    { counter: 'settle' as const, hours: settles.expired },
    { counter: 'verify' as const, hours: verifies.expired },
    { counter: 'reject' as const, hours: rejects.expired },
  ].filter((e) => e.hours.length > 0);
  return { signals, expired, expiredDays: long.expired };
}
