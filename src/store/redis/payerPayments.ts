/**
 * The counter behind the facilitator's per-payer budget (facilitator/payerLimit.ts): distinct
 * payments of one payer in one fixed window, in Redis, shared by every instance.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

// KEYS[1] = the payer's window counter, KEYS[2] = this payment in that window. A payment seen
// before in the window answers the count it got then, so a repeat is judged as the first was.
const COUNT_PAYMENT = `
local seen = redis.call('GET', KEYS[2])
if seen then return tonumber(seen) end
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
redis.call('SET', KEYS[2], count, 'PX', ARGV[1])
return count`;

type CountingRedis = RedisClient & { payerLimitCount(counter: string, payment: string, ttlMs: number): Promise<number> };

export class PayerPaymentCounter {
  private readonly redis: CountingRedis;
  private readonly keys: RedisKeys;

  constructor(redis: RedisClient, prefix: string) {
    if (!('payerLimitCount' in redis)) redis.defineCommand('payerLimitCount', { numberOfKeys: 2, lua: COUNT_PAYMENT });
    this.redis = redis as CountingRedis;
    this.keys = redisKeys(prefix);
  }

  /**
   * Counts `payment` (an id unique per payment) for `payer` in `window`; returns the payer's count
   * in that window, the one it got then for a payment counted before. Both keys expire after `ttlMs`.
   */
  count(operation: 'verify' | 'settle', window: number, payer: string, payment: string, ttlMs: number): Promise<number> {
    const counter = this.keys.payerPayments(operation, window, payer);
    return this.redis.payerLimitCount(counter, `${counter}:${payment}`, ttlMs);
  }
}
