/**
 * Rolling 7-day traffic counters per listing in Redis. Counts live in hourly buckets: one hash per
 * listing and counter whose fields are hours, so a window read is one HGETALL that returns only the
 * hours that saw traffic (a busy flush of 500 listings reads a few thousand fields, not 250,000
 * keys). Hours outside the last 7 days stop counting at once and are pruned when read; the hash
 * itself expires a week after its last write. Every change marks the listing dirty for the flusher,
 * and each bucket is scheduled (a sorted set scored by the time it leaves the window) so that the
 * listing is flushed again when its counts fall, whether or not new traffic arrives.
 *
 * Every event names the payer that caused it, and one payer's weight is bounded: per listing and UTC
 * day, a payer's first `payerDailyCap` settlements and first `payerDailyCap` verifications count,
 * the rest do not (docs/facilitator.md "Signals"). Who may count at all (value moved, payer not the
 * payTo, a signature and a funded wallet behind a rejection) is the facilitator's decision.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';
import type { Signals } from '../../shapes/listing.js';
import { systemClock, type Clock } from '../../core/clock.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const WINDOW_HOURS = 7 * 24;
export const DEFAULT_PAYER_DAILY_CAP = 10;

type Counter = 'settle' | 'verify' | 'reject';

/** A listing's signals as the flusher writes them: `firstSettled` goes to `provenance.settled.first`. */
export type FlushedSignals = Signals & { firstSettled?: string };

/**
 * One event, atomically: the payer's count of the day for this listing goes up, and only while it is
 * within the cap do the hourly buckets (KEYS[7..]) count it, and an `upto` settlement's amount
 * (ARGV[11], empty otherwise) join the 7-day amounts set (KEYS[5]) the median is read from. lastSettled, the dirty set and the aging
 * schedule are written either way when ARGV[9] carries a settlement time, so a settlement past the
 * cap still freshens lastSettled (it is real, only its weight is bounded).
 * A settlement also sets firstSettled (KEYS[6]) once, and keeps it FIRST_SETTLED_TTL past the last one.
 * KEYS: payer-day hash, dirty set, aging zset, lastSettled, amounts zset, firstSettled, bucket hashes...
 * ARGV: payer, cap, payer-day ttl, hour, bucket ttl, aging score, aging member, listing id, lastSettled,
 *       lastSettled ttl, amount, amount member, now ms, window start ms, max amounts kept, firstSettled ttl
 */
const RECORD_SCRIPT = `
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
local counted = n <= tonumber(ARGV[2])
if counted then
  for i = 7, #KEYS do
    redis.call('HINCRBY', KEYS[i], ARGV[4], 1)
    redis.call('EXPIRE', KEYS[i], ARGV[5])
  end
  if ARGV[11] ~= '' then
    redis.call('ZADD', KEYS[5], ARGV[13], ARGV[12])
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', ARGV[14])
    redis.call('ZREMRANGEBYRANK', KEYS[5], 0, -(tonumber(ARGV[15]) + 1))
    redis.call('EXPIRE', KEYS[5], ARGV[5])
  end
  redis.call('ZADD', KEYS[3], ARGV[6], ARGV[7])
end
if ARGV[9] ~= '' then
  redis.call('SET', KEYS[4], ARGV[9], 'EX', ARGV[10])
  redis.call('SET', KEYS[6], ARGV[9], 'NX')
  redis.call('EXPIRE', KEYS[6], ARGV[16])
end
if counted or ARGV[9] ~= '' then redis.call('SADD', KEYS[2], ARGV[8]) end
return counted and 1 or 0`;

type RecordingRedis = RedisClient & { signalsRecord(...args: Array<string | number>): Promise<number> };

/**
 * How long the first settlement's time outlives the last settlement: a listing nobody paid for in a
 * year starts a new first. One small key per settled listing, so memory follows the catalog's size.
 */
const FIRST_SETTLED_TTL_SECONDS = 400 * 24 * 3600;

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
  private readonly keys: RedisKeys;
  private readonly recording: RecordingRedis;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly clock: Clock = systemClock,
    private readonly payerDailyCap = DEFAULT_PAYER_DAILY_CAP,
  ) {
    this.keys = redisKeys(prefix);
    if (!('signalsRecord' in redis)) redis.defineCommand('signalsRecord', { lua: RECORD_SCRIPT });
    this.recording = redis as RecordingRedis;
  }

  /** Hash of `hour -> count` for one listing and counter. */
  private bucketsKey(listingId: string, counter: Counter): string {
    return this.keys.signalBuckets(listingId, counter);
  }

  private lastSettledKey(listingId: string): string {
    return this.keys.signalLastSettled(listingId);
  }

  /** Sorted set of settled `upto` amounts (`amount|ms|nonce`), scored by settlement time. */
  private amountsKey(listingId: string): string {
    return this.keys.signalAmounts(listingId);
  }

  private get dirtyKey(): string {
    return this.keys.signalsDirty;
  }

  /** Members `listingId|hour`, scored by when that bucket leaves the window. */
  private get agingKey(): string {
    return this.keys.signalsAging;
  }

  /** Hash of `payer -> events` of one listing, kind of event and UTC day. */
  private payerDayKey(listingId: string, kind: 'settle' | 'verify', day: number): string {
    return this.keys.signalPayerDay(listingId, kind, day);
  }

  /** Counts one event of `payer` for the listing; false when the payer's daily cap left it uncounted. */
  private async record(listingId: string, payer: string, kind: 'settle' | 'verify', counters: Counter[], settledAmount = ''): Promise<boolean> {
    const now = this.clock();
    const hour = Math.floor(now / HOUR_MS);
    // Relative TTL (the newest bucket's remaining life in the window), so an injected clock never
    // makes Redis drop buckets the window still counts.
    const ttlSeconds = Math.ceil(((hour + 1 + WINDOW_HOURS) * HOUR_MS - now) / 1000);
    const day = Math.floor(now / DAY_MS);
    const payerTtlSeconds = Math.ceil(((day + 2) * DAY_MS - now) / 1000);
    const lastSettled = kind === 'settle' ? new Date(this.clock()).toISOString() : '';
    const keys = [
      this.payerDayKey(listingId, kind, day),
      this.dirtyKey,
      this.agingKey,
      this.lastSettledKey(listingId),
      this.amountsKey(listingId),
      this.keys.signalFirstSettled(listingId),
      ...counters.map((counter) => this.bucketsKey(listingId, counter)),
    ];
    const counted = await this.recording.signalsRecord(
      keys.length,
      ...keys,
      payer.toLowerCase(),
      this.payerDailyCap,
      payerTtlSeconds,
      hour,
      ttlSeconds,
      (hour + WINDOW_HOURS) * HOUR_MS,
      `${listingId}|${hour}`,
      listingId,
      lastSettled,
      WINDOW_HOURS * 3600 * 5,
      settledAmount,
      `${settledAmount}|${now}|${Math.random().toString(36).slice(2, 10)}`,
      now,
      now - WINDOW_HOURS * HOUR_MS,
      MEDIAN_SAMPLES,
      FIRST_SETTLED_TTL_SECONDS,
    );
    return counted === 1;
  }

  /**
   * A verification by `payer`: toward the rejection rate's denominator, and when refused also toward
   * its numerator. Resolves false when the payer's daily cap for this listing left it uncounted.
   */
  recordVerify(listingId: string, payer: string, valid: boolean): Promise<boolean> {
    return this.record(listingId, payer, 'verify', valid ? ['verify'] : ['verify', 'reject']);
  }

  /**
   * A settlement paid by `payer`; lastSettled moves even past the payer's daily cap. `settledAmount`:
   * for `upto` settlements, the amount actually settled (feeds `medianSettledAmount7d`).
   */
  recordSettle(listingId: string, payer: string, settledAmount?: string): Promise<boolean> {
    return this.record(listingId, payer, 'settle', ['settle'], settledAmount);
  }

  /** The `signals` block of several listings as of the clock's now, with the first settlement's time (for provenance). */
  async read(listingIds: string[]): Promise<Map<string, FlushedSignals>> {
    const out = new Map<string, FlushedSignals>();
    if (listingIds.length === 0) return out;
    const hour = Math.floor(this.clock() / HOUR_MS);
    const oldestCounted = hour - WINDOW_HOURS + 1;
    const counters = ['settle', 'verify', 'reject'] as const;
    const pipeline = this.redis.pipeline();
    for (const id of listingIds) {
      for (const counter of counters) pipeline.hgetall(this.bucketsKey(id, counter));
      pipeline.get(this.lastSettledKey(id));
      pipeline.zrangebyscore(this.amountsKey(id), this.clock() - WINDOW_HOURS * HOUR_MS + 1, '+inf');
      pipeline.get(this.keys.signalFirstSettled(id));
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
      const base = i * 6;
      const settles = sum(id, 'settle', results[base]);
      const verifies = sum(id, 'verify', results[base + 1]);
      const rejects = sum(id, 'reject', results[base + 2]);
      const lastSettled = results[base + 3]?.[1] as string | null | undefined;
      const signals: FlushedSignals = {
        settleCount7d: settles,
        rejectionRate7d: verifies === 0 ? 0 : Math.round((rejects / verifies) * 10_000) / 10_000,
      };
      if (lastSettled) signals.lastSettled = lastSettled;
      const median = medianAmount((results[base + 4]?.[1] as string[] | undefined) ?? []);
      if (median !== undefined) signals.medianSettledAmount7d = median;
      const firstSettled = results[base + 5]?.[1] as string | null | undefined;
      if (firstSettled && lastSettled) signals.firstSettled = firstSettled;
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
    const due = await this.redis.zrangebyscore(this.agingKey, '-inf', this.clock(), 'LIMIT', 0, max);
    if (due.length === 0) return [];
    await this.redis.zrem(this.agingKey, ...due);
    return [...new Set(due.map((member) => member.slice(0, member.lastIndexOf('|'))))];
  }
}
