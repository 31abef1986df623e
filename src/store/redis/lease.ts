/**
 * A lease in Redis: among several service instances, one holds the right to run a periodic pass
 * (staleness sweep, index check) and the others skip it. Taken with SET NX PX, kept by its holder
 * with a compare-and-extend script (only the holder's own token extends it), given back with a
 * compare-and-delete. A holder that dies stops renewing, so another instance takes over once the
 * TTL ran out.
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './client.js';
import type { PassLease } from '../../core/worker.js';

// KEYS[1] = the lease, ARGV[1] = the holder's token, ARGV[2] = TTL in ms. 1: held (taken or extended).
const HOLD = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

type LeasingRedis = RedisClient & {
  leaseHold(key: string, token: string, ttlMs: number): Promise<number>;
  leaseRelease(key: string, token: string): Promise<number>;
};

export class RedisLease implements PassLease {
  private readonly redis: LeasingRedis;
  /** This holder's token: unique per instance and lease, so nobody else can extend or release it. */
  readonly token = randomBytes(12).toString('hex');

  constructor(
    redis: RedisClient,
    readonly key: string,
    private readonly ttlMs: number,
  ) {
    if (!('leaseHold' in redis)) redis.defineCommand('leaseHold', { numberOfKeys: 1, lua: HOLD });
    if (!('leaseRelease' in redis)) redis.defineCommand('leaseRelease', { numberOfKeys: 1, lua: RELEASE });
    this.redis = redis as LeasingRedis;
  }

  /** True when this instance holds the lease now (taken, or extended for another TTL). */
  async hold(): Promise<boolean> {
    return (await this.redis.leaseHold(this.key, this.token, this.ttlMs)) === 1;
  }

  /** Gives the lease back at once (a clean stop), so another instance need not wait for the TTL. */
  async release(): Promise<void> {
    await this.redis.leaseRelease(this.key, this.token);
  }
}

/** How long a periodic pass's lease lives: a few periods, so one slow pass does not lose it. */
export function leaseTtlFor(intervalMs: number): number {
  return Math.max(3 * intervalMs, 3000);
}
