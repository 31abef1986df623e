/**
 * Active health checks per listing (issue 13, docs/health.md): one sorted set per listing,
 * scored by check time, holding `at|ok|latencyMs`. Recording trims everything older than the 7-day
 * window (and keeps at most MAX_CHECKS, should an operator set a tiny interval), lets the set expire
 * a window after its last check, and marks the listing dirty so the signal flusher writes the new
 * `signals.health` to Elasticsearch with the other signals, in one script (the keys share the
 * `signals` group). What a window of checks says (uptime, median latency) is src/signals/health.ts's.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export const HEALTH_WINDOW_MS = 7 * 86_400_000;
/** 7 days at one check a minute (the shortest interval config allows) is 10,080; this bounds it. */
export const MAX_CHECKS = 10_080;

/**
 * KEYS: checks zset, dirty set. ARGV: score (at), member, oldest score kept, max checks, ttl s, listing id.
 */
const RECORD_SCRIPT = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('SADD', KEYS[2], ARGV[6])
return 1`;

type RecordingRedis = RedisClient & { healthRecord(...args: Array<string | number>): Promise<number> };

export interface HealthCheck {
  /** Epoch ms of the check. */
  at: number;
  /** A valid 402 matching the listing came back. */
  ok: boolean;
  latencyMs: number;
}

function parseMember(member: string): HealthCheck | undefined {
  const [at, ok, latency] = member.split('|');
  const check = { at: Number(at), ok: ok === '1', latencyMs: Number(latency) };
  return Number.isFinite(check.at) && Number.isFinite(check.latencyMs) ? check : undefined;
}

export class HealthChecks {
  private readonly keys: RedisKeys;
  private readonly recording: RecordingRedis;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
    if (!('healthRecord' in redis)) redis.defineCommand('healthRecord', { numberOfKeys: 2, lua: RECORD_SCRIPT });
    this.recording = redis as RecordingRedis;
  }

  async record(listingId: string, check: HealthCheck): Promise<void> {
    const latency = Math.max(0, Math.round(check.latencyMs));
    // The random tail keeps two checks of the same millisecond (two gateways) apart.
    const member = `${check.at}|${check.ok ? 1 : 0}|${latency}|${Math.random().toString(36).slice(2, 8)}`;
    await this.recording.healthRecord(
      this.keys.healthChecks(listingId),
      this.keys.signalsDirty,
      check.at,
      member,
      check.at - HEALTH_WINDOW_MS,
      MAX_CHECKS,
      Math.ceil(HEALTH_WINDOW_MS / 1000),
      listingId,
    );
  }

  /** The checks of the window ending at `now`, oldest first. */
  async checks(listingId: string, now: number): Promise<HealthCheck[]> {
    const members = await this.redis.zrangebyscore(this.keys.healthChecks(listingId), now - HEALTH_WINDOW_MS, '+inf');
    return members.map(parseMember).filter((c): c is HealthCheck => c !== undefined);
  }

  /** The checks of several listings in the window ending at `now`, oldest first (src/signals/health.ts sums them up). */
  async checksOf(listingIds: string[], now: number): Promise<Map<string, HealthCheck[]>> {
    const out = new Map<string, HealthCheck[]>();
    if (listingIds.length === 0) return out;
    const pipeline = this.redis.pipeline();
    for (const id of listingIds) pipeline.zrangebyscore(this.keys.healthChecks(id), now - HEALTH_WINDOW_MS, '+inf');
    const results = (await pipeline.exec()) ?? [];
    listingIds.forEach((id, i) => {
      const [err, members] = results[i] ?? [new Error('missing pipeline result'), null];
      if (err) throw err;
      out.set(id, (members as string[]).map(parseMember).filter((c): c is HealthCheck => c !== undefined));
    });
    return out;
  }

  /** Epoch ms of the listing's latest settlement, when the signal counters still know it. */
  async lastSettledAt(listingId: string): Promise<number | undefined> {
    const value = await this.redis.get(this.keys.signalLastSettled(listingId));
    const at = value ? Date.parse(value) : NaN;
    return Number.isFinite(at) ? at : undefined;
  }
}
