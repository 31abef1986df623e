/**
 * Rolling 7-day traffic counters per listing in Redis. Counts live in hourly buckets: one hash per
 * listing and counter whose fields are hours, so a window read is one HGETALL that returns only the
 * hours that saw traffic (a busy flush of 500 listings reads a few thousand fields, not 250,000
 * keys). Hours outside the last 7 days stop counting at once and are pruned when read; the hash
 * itself expires a week after its last write. Every change marks the listing dirty for the flusher,
 * and each bucket is scheduled (a sorted set scored by the time it leaves the window) so that the
 * listing is flushed again when its counts fall, whether or not new traffic arrives.
 */
import type { Redis } from 'ioredis';
import type { Signals } from '../catalog/listing.js';
import { systemClock, type Clock } from '../clock.js';

const HOUR_MS = 3_600_000;
export const WINDOW_HOURS = 7 * 24;

type Counter = 'settle' | 'verify' | 'reject';

/** The median is taken over at most this many of the most recent settlements in the window. */
export const MEDIAN_SAMPLES = 1000;

/**
 * Median of `amount|...` members as an integer string, compared as integers (amounts exceed 2^53);
 * for an even count the lower middle one, so it is always an amount that was actually settled.
 */
export function medianAmount(members: string[]): string | undefined {
  const amounts = members.map((m) => BigInt(m.slice(0, m.indexOf('|')))).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return amounts.length === 0 ? undefined : amounts[Math.floor((amounts.length - 1) / 2)]!.toString();
}

export class SignalCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Hash of `hour -> count` for one listing and counter. */
  private bucketsKey(listingId: string, counter: Counter): string {
    return `${this.prefix}signals:${listingId}:${counter}`;
  }

  private lastSettledKey(listingId: string): string {
    return `${this.prefix}signals:${listingId}:lastSettled`;
  }

  /** Sorted set of settled `upto` amounts (`amount|ms|nonce`), scored by settlement time. */
  private amountsKey(listingId: string): string {
    return `${this.prefix}signals:${listingId}:amounts`;
  }

  private get dirtyKey(): string {
    return `${this.prefix}signals:dirty`;
  }

  /** Members `listingId|hour`, scored by when that bucket leaves the window. */
  private get agingKey(): string {
    return `${this.prefix}signals:aging`;
  }

  private async bump(listingId: string, counters: Counter[], lastSettled?: string, settledAmount?: string): Promise<void> {
    const now = this.clock().getTime();
    const hour = Math.floor(now / HOUR_MS);
    // Relative TTL (the newest bucket's remaining life in the window), so an injected clock never
    // makes Redis drop buckets the window still counts.
    const ttlSeconds = Math.ceil(((hour + 1 + WINDOW_HOURS) * HOUR_MS - now) / 1000);
    const pipeline = this.redis.pipeline();
    for (const counter of counters) {
      const key = this.bucketsKey(listingId, counter);
      pipeline.hincrby(key, String(hour), 1).expire(key, ttlSeconds);
    }
    if (lastSettled) pipeline.set(this.lastSettledKey(listingId), lastSettled, 'EX', WINDOW_HOURS * 3600 * 5);
    if (settledAmount !== undefined) {
      const key = this.amountsKey(listingId);
      pipeline
        .zadd(key, now, `${settledAmount}|${now}|${Math.random().toString(36).slice(2, 10)}`)
        .zremrangebyscore(key, '-inf', now - WINDOW_HOURS * HOUR_MS)
        .zremrangebyrank(key, 0, -(MEDIAN_SAMPLES + 1))
        .expire(key, ttlSeconds);
    }
    pipeline.sadd(this.dirtyKey, listingId).zadd(this.agingKey, (hour + WINDOW_HOURS) * HOUR_MS, `${listingId}|${hour}`);
    const results = await pipeline.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  /** Every verification counts toward the rejection rate's denominator; a rejection also toward its numerator. */
  recordVerify(listingId: string, valid: boolean): Promise<void> {
    return this.bump(listingId, valid ? ['verify'] : ['verify', 'reject']);
  }

  /** `settledAmount`: for `upto` settlements, the amount actually settled (feeds `medianSettledAmount7d`). */
  recordSettle(listingId: string, settledAmount?: string): Promise<void> {
    return this.bump(listingId, ['settle'], this.clock().toISOString(), settledAmount);
  }

  /** The `signals` block of several listings as of the clock's now. */
  async read(listingIds: string[]): Promise<Map<string, Signals>> {
    const out = new Map<string, Signals>();
    if (listingIds.length === 0) return out;
    const hour = Math.floor(this.clock().getTime() / HOUR_MS);
    const oldestCounted = hour - WINDOW_HOURS + 1;
    const counters = ['settle', 'verify', 'reject'] as const;
    const pipeline = this.redis.pipeline();
    for (const id of listingIds) {
      for (const counter of counters) pipeline.hgetall(this.bucketsKey(id, counter));
      pipeline.get(this.lastSettledKey(id));
      pipeline.zrangebyscore(this.amountsKey(id), this.clock().getTime() - WINDOW_HOURS * HOUR_MS + 1, '+inf');
    }
    const results = (await pipeline.exec()) ?? [];
    const expired = this.redis.pipeline();
    const sum = (id: string, counter: Counter, entry: [Error | null, unknown] | undefined): number => {
      if (!entry || entry[0]) throw entry?.[0] ?? new Error('missing pipeline result');
      let total = 0;
      const old: string[] = [];
      for (const [field, value] of Object.entries(entry[1] as Record<string, string>)) {
        const bucketHour = Number(field);
        if (bucketHour < oldestCounted) old.push(field);
        else if (bucketHour <= hour) total += Number(value);
      }
      if (old.length > 0) expired.hdel(this.bucketsKey(id, counter), ...old);
      return total;
    };
    listingIds.forEach((id, i) => {
      const base = i * 5;
      const settles = sum(id, 'settle', results[base]);
      const verifies = sum(id, 'verify', results[base + 1]);
      const rejects = sum(id, 'reject', results[base + 2]);
      const lastSettled = results[base + 3]?.[1] as string | null | undefined;
      const signals: Signals = {
        settleCount7d: settles,
        rejectionRate7d: verifies === 0 ? 0 : Math.round((rejects / verifies) * 10_000) / 10_000,
      };
      if (lastSettled) signals.lastSettled = lastSettled;
      const median = medianAmount((results[base + 4]?.[1] as string[] | undefined) ?? []);
      if (median !== undefined) signals.medianSettledAmount7d = median;
      out.set(id, signals);
    });
    // Pruning is housekeeping: the window sum above already ignores old hours.
    if (expired.length > 0) await expired.exec();
    return out;
  }

  /** Takes up to `max` listings whose counters changed since they were last flushed. */
  async takeDirty(max: number): Promise<string[]> {
    const ids = await this.redis.spop(this.dirtyKey, max);
    return ids ?? [];
  }

  async markDirty(listingIds: string[]): Promise<void> {
    if (listingIds.length > 0) await this.redis.sadd(this.dirtyKey, ...listingIds);
  }

  /**
   * Listings whose counts fell because a bucket left the window since the last call (at most `max`
   * buckets per call); they need a flush even without new traffic.
   */
  async aged(max = 1000): Promise<string[]> {
    const due = await this.redis.zrangebyscore(this.agingKey, '-inf', this.clock().getTime(), 'LIMIT', 0, max);
    if (due.length === 0) return [];
    await this.redis.zrem(this.agingKey, ...due);
    return [...new Set(due.map((member) => member.slice(0, member.lastIndexOf('|'))))];
  }
}
