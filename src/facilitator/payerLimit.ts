/**
 * The per-payer budget of /verify and /settle (RATE_LIMIT_FACILITATOR_PAYER; docs/facilitator.md
 * "Rate limits"). It is counted after the signature was recovered, so only the wallet's own payments
 * spend it: nobody can lock a buyer out by sending payloads that merely claim its address. And it
 * counts distinct payments (payer, nonce), so replaying a buyer's signed payload, which anyone who
 * saw it can do, does not spend it either. Fixed windows in Redis, shared by every instance.
 */
import type { RedisClient } from '../core/clients.js';
import { redisKeys } from '../store/redis/redisKeys.js';
import type { RateLimitRule } from '../config.js';
import type { Transfer } from './transfer.js';

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

/** Thrown when a payer spent its budget; the route answers 429 rate_limited with Retry-After. */
export class PayerLimitExceeded extends Error {
  constructor(readonly rule: RateLimitRule, readonly retryAfterSeconds: number) {
    super(`payer rate limit: at most ${rule.limit} payments per ${rule.windowMs} ms`);
    this.name = 'PayerLimitExceeded';
  }
}

export class PayerLimit {
  private readonly redis: CountingRedis | undefined;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly rule: RateLimitRule | undefined,
    private readonly now: () => number = Date.now,
  ) {
    if (rule && !('payerLimitCount' in redis)) redis.defineCommand('payerLimitCount', { numberOfKeys: 2, lua: COUNT_PAYMENT });
    this.redis = rule ? (redis as CountingRedis) : undefined;
  }

  /** Counts one payment of `operation` by `payer`; throws PayerLimitExceeded past the rule (no-op when off). */
  async consume(operation: 'verify' | 'settle', payer: string, transfer: Transfer): Promise<void> {
    const { rule, redis } = this;
    if (!rule || !redis) return;
    const at = this.now();
    const window = Math.floor(at / rule.windowMs);
    const counter = redisKeys(this.prefix).payerPayments(operation, window, payer.toLowerCase());
    const count = await redis.payerLimitCount(counter, `${counter}:${transfer.network}|${transfer.nonceSpace}|${transfer.nonce}`, rule.windowMs + 1000);
    if (count > rule.limit) throw new PayerLimitExceeded(rule, Math.max(1, Math.ceil(((window + 1) * rule.windowMs - at) / 1000)));
  }
}
