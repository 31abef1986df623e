/**
 * Fixed-window request counters in Redis, shared by every instance of the service: one key per
 * budget name, window and subject, counted and given its expiry in one script.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

const COUNT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

type CountingRedis = RedisClient & { rateLimitCountBy(key: string, ttlMs: number, by: number): Promise<number> };

export class RateLimitCounter {
  private readonly redis: CountingRedis;

  private readonly keys: RedisKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
    if (!('rateLimitCountBy' in redis)) redis.defineCommand('rateLimitCountBy', { numberOfKeys: 1, lua: COUNT });
    this.redis = redis as CountingRedis;
  }

  /**
   * Counts `by` more (one request, or the reads one request makes: a JSON-RPC batch, a change-feed
   * page) of `subject` against budget `name` in `window`; the key lives `ttlMs`.
   */
  count(name: string, window: number, subject: string, ttlMs: number, by = 1): Promise<number> {
    return this.redis.rateLimitCountBy(this.keys.rateLimit(name, window, subject), ttlMs, by);
  }
}
