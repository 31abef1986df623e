/**
 * Where the listing signals' counts live in Redis (the windows, caps and medians themselves are
 * src/signals/'s: this adapter stores what it is told). Counts live in hourly buckets: one hash per
 * listing and counter whose fields are hours, so a window read is one HGETALL that returns only the
 * hours that saw traffic (a busy flush of 500 listings reads a few thousand fields, not 250,000
 * keys). Every counted event marks the listing dirty for the flusher and schedules its bucket (a
 * sorted set scored by the time the bucket leaves the window), so that the listing is flushed
 * again when its counts fall, whether or not new traffic arrives.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export type SignalCounter = 'settle' | 'verify' | 'reject';
/** The payer-capped kinds of event: a verification (valid or refused) or a settlement. */
export type SignalEventKind = 'settle' | 'verify';

/** One event as src/signals/ placed it: its hour, day, lifetimes and the payer's cap, worked out there. */
export interface SignalEvent {
  listingId: string;
  /** Lower-case payer address: its count of the day for this listing is capped. */
  payer: string;
  kind: SignalEventKind;
  /** The hourly counters the event raises, while the payer is within its cap. */
  counters: SignalCounter[];
  payerDailyCap: number;
  /** UTC day number and the payer-day hash's lifetime. */
  day: number;
  payerDayTtlSeconds: number;
  /** Hour number (epoch ms / 1 h) and its bucket's lifetime. */
  hour: number;
  bucketTtlSeconds: number;
  /** When the bucket leaves the window (epoch ms): the listing is flushed again then. */
  leavesWindowAt: number;
  /** ISO time of a settlement (written even past the cap), with its key's lifetime. */
  lastSettled?: { at: string; ttlSeconds: number };
  /** The settlement's on-chain transaction hash (a chain settlement only): the latest, and the first once. */
  transaction?: string;
  /** A settled `upto` amount joining the window's samples, kept from `since` on, at most `maxSamples`. */
  amount?: { value: string; at: number; since: number; maxSamples: number };
  /** A settlement's payer evidence: first settlement, distinct payers of the day, counted settlements per day and per payer. */
  payers?: PayerRetention;
}

/** How long the per-payer evidence of a settlement lives, and how many payers a day keeps by count. */
export interface PayerRetention {
  firstSettledTtlSeconds: number;
  /** The day's distinct-payer HyperLogLog and the per-day settlement counts (the 30-day reads). */
  dayTtlSeconds: number;
  /** The day's largest payers (the 7-day share). */
  topPayersTtlSeconds: number;
  topPayersKept: number;
}

/** What Redis holds of one listing's window: hour -> count per counter, lastSettled, amount samples. */
export interface StoredSignalWindow {
  buckets: Record<SignalCounter, Record<string, string>>;
  lastSettled: string | undefined;
  firstSettled: string | undefined;
  /** The transactions of the first and the latest settlement on a chain (absent: none was on a chain). */
  firstTransaction?: string;
  lastTransaction?: string;
  /** Settled amounts (integer strings) from the read's `amountsSince` on. */
  amounts: string[];
  /** Distinct payers over the days asked for (HyperLogLog union: within about 1%). */
  payersShort: number;
  payersLong: number;
  /** UTC day -> counted settlements (days past the read's range included: dropDays prunes them). */
  settleDays: Record<string, string>;
  /** Per day asked for: payer -> counted settlements, the day's largest payers only. */
  topPayers: Array<Record<string, number>>;
}

/** The UTC days a read covers: the short window's (7) and the long one's (30), newest first. */
export interface SignalDays {
  short: number[];
  long: number[];
}

/**
 * One event, atomically: the payer's count of the day for this listing goes up, and only while it is
 * within the cap do the hourly buckets (KEYS[10..]) count it, and an `upto` settlement's amount
 * (ARGV[11], empty otherwise) join the amounts set (KEYS[5]) the median is read from. lastSettled, the dirty set and the aging
 * schedule are written either way when ARGV[9] carries a settlement time, so a settlement past the
 * cap still freshens lastSettled (it is real, only its weight is bounded).
 * A settlement with payer evidence (ARGV[16], its day) also sets firstSettled once (KEYS[6]), adds
 * the payer to the day's distinct-payer HyperLogLog (KEYS[7]; every settlement, a payer past its
 * cap is still a payer) and, while counted, raises the day's settlement count (KEYS[8]) and the
 * payer's score in the day's largest payers (KEYS[9], cut back to the ARGV[20] largest).
 * A settlement's transaction (ARGV[21], a chain settlement's hash) is kept beside lastSettled
 * (KEYS[11]) and, with the settlement that set firstSettled, beside it (KEYS[10]).
 * KEYS: payer-day hash, dirty set, aging zset, lastSettled, amounts zset, firstSettled, payers HLL,
 *       settle-days hash, top-payers zset, firstSettled tx, lastSettled tx, bucket hashes...
 * ARGV: payer, cap, payer-day ttl, hour, bucket ttl, aging score, aging member, listing id, lastSettled,
 *       lastSettled ttl, amount, amount member, now ms, window start ms, max amounts kept,
 *       day, firstSettled ttl, day ttl, top-payers ttl, top payers kept, transaction
 */
const RECORD_SCRIPT = `
local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
local counted = n <= tonumber(ARGV[2])
if counted then
  for i = 12, #KEYS do
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
if counted and ARGV[9] ~= '' and ARGV[16] ~= '' then
  redis.call('HINCRBY', KEYS[8], ARGV[16], 1)
  redis.call('EXPIRE', KEYS[8], ARGV[18])
  redis.call('ZINCRBY', KEYS[9], 1, ARGV[1])
  local size = redis.call('ZCARD', KEYS[9])
  local kept = tonumber(ARGV[20])
  if size > kept then redis.call('ZREMRANGEBYRANK', KEYS[9], 0, size - kept - 1) end
  redis.call('EXPIRE', KEYS[9], ARGV[19])
end
if ARGV[9] ~= '' then
  redis.call('SET', KEYS[4], ARGV[9], 'EX', ARGV[10])
  if ARGV[21] ~= '' then redis.call('SET', KEYS[11], ARGV[21], 'EX', ARGV[10]) end
  if ARGV[16] ~= '' then
    local first = redis.call('SET', KEYS[6], ARGV[9], 'NX')
    redis.call('EXPIRE', KEYS[6], ARGV[17])
    if first and ARGV[21] ~= '' then redis.call('SET', KEYS[10], ARGV[21]) end
    if redis.call('EXISTS', KEYS[10]) == 1 then redis.call('EXPIRE', KEYS[10], ARGV[17]) end
    redis.call('PFADD', KEYS[7], ARGV[1])
    redis.call('EXPIRE', KEYS[7], ARGV[18])
  end
end
if counted or ARGV[9] ~= '' then redis.call('SADD', KEYS[2], ARGV[8]) end
return counted and 1 or 0`;

type RecordingRedis = RedisClient & { signalsRecord(...args: Array<string | number>): Promise<number> };

const COUNTERS: readonly SignalCounter[] = ['settle', 'verify', 'reject'];

/** ZRANGE ... WITHSCORES's flat `[member, score, ...]` as `member -> score`. */
function scoresOf(flat: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = Number(flat[i + 1]);
  return out;
}

export class SignalStore {
  private readonly keys: RedisKeys;
  private readonly recording: RecordingRedis;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
    if (!('signalsRecord' in redis)) redis.defineCommand('signalsRecord', { lua: RECORD_SCRIPT });
    this.recording = redis as RecordingRedis;
  }

  /** Records one event; false when the payer's daily cap left it uncounted. */
  async record(event: SignalEvent): Promise<boolean> {
    const { listingId, hour } = event;
    const keys = [
      this.keys.signalPayerDay(listingId, event.kind, event.day),
      this.keys.signalsDirty,
      this.keys.signalsAging,
      this.keys.signalLastSettled(listingId),
      this.keys.signalAmounts(listingId),
      this.keys.signalFirstSettled(listingId),
      this.keys.signalPayers(listingId, event.day),
      this.keys.signalSettleDays(listingId),
      this.keys.signalTopPayers(listingId, event.day),
      this.keys.signalFirstSettledTx(listingId),
      this.keys.signalLastSettledTx(listingId),
      ...event.counters.map((counter) => this.keys.signalBuckets(listingId, counter)),
    ];
    const { amount, payers } = event;
    const counted = await this.recording.signalsRecord(
      keys.length,
      ...keys,
      event.payer,
      event.payerDailyCap,
      event.payerDayTtlSeconds,
      hour,
      event.bucketTtlSeconds,
      event.leavesWindowAt,
      `${listingId}|${hour}`,
      listingId,
      event.lastSettled?.at ?? '',
      event.lastSettled?.ttlSeconds ?? 0,
      amount?.value ?? '',
      // The time and a random tail keep equal amounts apart as members of the set.
      amount ? `${amount.value}|${amount.at}|${Math.random().toString(36).slice(2, 10)}` : '',
      amount?.at ?? 0,
      amount?.since ?? 0,
      amount?.maxSamples ?? 0,
      payers ? event.day : '',
      payers?.firstSettledTtlSeconds ?? 0,
      payers?.dayTtlSeconds ?? 0,
      payers?.topPayersTtlSeconds ?? 0,
      payers?.topPayersKept ?? 0,
      event.transaction ?? '',
    );
    return counted === 1;
  }

  /** The stored window of several listings; amount samples from `amountsSince` (epoch ms, exclusive) on; payers over `days`. */
  async read(listingIds: string[], amountsSince: number, days: SignalDays): Promise<Map<string, StoredSignalWindow>> {
    const out = new Map<string, StoredSignalWindow>();
    if (listingIds.length === 0) return out;
    const pipeline = this.redis.pipeline();
    const perListing = 11 + days.short.length;
    for (const id of listingIds) {
      for (const counter of COUNTERS) pipeline.hgetall(this.keys.signalBuckets(id, counter));
      pipeline.get(this.keys.signalLastSettled(id));
      pipeline.zrangebyscore(this.keys.signalAmounts(id), amountsSince + 1, '+inf');
      pipeline.get(this.keys.signalFirstSettled(id));
      pipeline.pfcount(...days.short.map((day) => this.keys.signalPayers(id, day)));
      pipeline.pfcount(...days.long.map((day) => this.keys.signalPayers(id, day)));
      pipeline.hgetall(this.keys.signalSettleDays(id));
      for (const day of days.short) pipeline.zrange(this.keys.signalTopPayers(id, day), 0, -1, 'WITHSCORES');
      pipeline.get(this.keys.signalFirstSettledTx(id));
      pipeline.get(this.keys.signalLastSettledTx(id));
    }
    const results = (await pipeline.exec()) ?? [];
    const value = (index: number): unknown => {
      const entry = results[index];
      if (!entry || entry[0]) throw entry?.[0] ?? new Error('missing pipeline result');
      return entry[1];
    };
    listingIds.forEach((id, i) => {
      const base = i * perListing;
      const [settle, verify, reject] = [0, 1, 2].map((k) => value(base + k) as Record<string, string>);
      const members = (value(base + 4) as string[] | null) ?? [];
      const firstTransaction = value(base + 9 + days.short.length) as string | null;
      const lastTransaction = value(base + 10 + days.short.length) as string | null;
      out.set(id, {
        ...(firstTransaction ? { firstTransaction } : {}),
        ...(lastTransaction ? { lastTransaction } : {}),
        buckets: { settle: settle!, verify: verify!, reject: reject! },
        lastSettled: (value(base + 3) as string | null) ?? undefined,
        firstSettled: (value(base + 5) as string | null) ?? undefined,
        amounts: members.map((member) => member.slice(0, member.indexOf('|'))),
        payersShort: Number(value(base + 6)),
        payersLong: Number(value(base + 7)),
        settleDays: value(base + 8) as Record<string, string>,
        topPayers: days.short.map((_, k) => scoresOf(value(base + 9 + k) as string[])),
      });
    });
    return out;
  }

  /** Drops day fields of the 30-day settlement counts that left it (housekeeping, as dropHours). */
  async dropDays(expired: Array<{ listingId: string; days: string[] }>): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const { listingId, days } of expired) if (days.length > 0) pipeline.hdel(this.keys.signalSettleDays(listingId), ...days);
    if (pipeline.length > 0) await pipeline.exec();
  }

  /** Drops hour fields that left the window (housekeeping: a window read ignores them anyway). */
  async dropHours(expired: Array<{ listingId: string; counter: SignalCounter; hours: string[] }>): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const { listingId, counter, hours } of expired) {
      if (hours.length > 0) pipeline.hdel(this.keys.signalBuckets(listingId, counter), ...hours);
    }
    if (pipeline.length > 0) await pipeline.exec();
  }

  /** Takes up to `max` listings whose counters changed since they were last flushed. */
  async takeDirty(max: number): Promise<string[]> {
    const ids = await this.redis.spop(this.keys.signalsDirty, max);
    return ids ?? [];
  }

  async markDirty(listingIds: string[]): Promise<void> {
    if (listingIds.length > 0) await this.redis.sadd(this.keys.signalsDirty, ...listingIds);
  }

  /** Listings with a bucket that left the window by `now` (at most `max` buckets per call), taken off the schedule. */
  async takeAged(now: number, max: number): Promise<string[]> {
    const due = await this.redis.zrangebyscore(this.keys.signalsAging, '-inf', now, 'LIMIT', 0, max);
    if (due.length === 0) return [];
    await this.redis.zrem(this.keys.signalsAging, ...due);
    return [...new Set(due.map((member) => member.slice(0, member.lastIndexOf('|'))))];
  }
}
