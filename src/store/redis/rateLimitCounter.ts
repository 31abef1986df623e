/**
 * Fixed-window request counters in Redis, shared by every instance of the service: one key per
 * budget name, window and subject, counted and given its expiry in one script.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

const COUNT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

type CountingRedis = RedisClient & { rateLimitCount(key: string, ttlMs: number): Promise<number> };

export class RateLimitCounter {
  private readonly redis: CountingRedis;

  private readonly keys: RedisKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
    if (!('rateLimitCount' in redis)) redis.defineCommand('rateLimitCount', { numberOfKeys: 1, lua: COUNT });
    this.redis = redis as CountingRedis;
  }

  /** Counts one more request of `subject` against budget `name` in `window`; the key lives `ttlMs`. */
  count(name: string, window: number, subject: string, ttlMs: number): Promise<number> {
    return this.redis.rateLimitCount(this.keys.rateLimit(name, window, subject), ttlMs);
  }
}
