/**
 * The Redis side of the settlements this facilitator sent on chain (src/facilitator/settlementHistory.ts):
 * each settlement by its transaction hash, and per payTo its newest ones. Both are single keys in no
 * shared slot, so under Redis Cluster they spread; the per-payTo list holds the entries themselves
 * (a sorted set scored by time, member = the entry's JSON), so a seller's page is one read.
 * Bounded: `cap` entries per payTo, every key expiring `ttlSeconds` after its latest write.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

/** KEYS: the payTo's set. ARGV: score, entry, cap, ttl seconds. Add, trim to the newest `cap`, refresh the expiry. */
const ADD_SCRIPT = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[3]) - 1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
`;

type AddingRedis = RedisClient & { settlementLogAdd(numberOfKeys: number, ...args: Array<string | number>): Promise<number> };

export class SettlementLog {
  private readonly keys: RedisKeys;

  private readonly adding: AddingRedis;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly cap: number,
    private readonly ttlSeconds: number,
  ) {
    this.keys = redisKeys(prefix);
    if (!('settlementLogAdd' in redis)) redis.defineCommand('settlementLogAdd', { lua: ADD_SCRIPT });
    this.adding = redis as AddingRedis;
  }

  /** Stores one settlement (JSON) under its hash and in its payTo's list; `payTo` and `transaction` lower case. */
  async add(transaction: string, payTo: string, atMs: number, entry: string): Promise<void> {
    await Promise.all([
      this.redis.set(this.keys.settlementByHash(transaction), entry, 'EX', this.ttlSeconds),
      this.adding.settlementLogAdd(1, this.keys.settlementsOfPayee(payTo), atMs, entry, this.cap, this.ttlSeconds),
    ]);
  }

  async byHash(transaction: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.settlementByHash(transaction))) ?? undefined;
  }

  /** The newest `limit` entries of one payTo, newest first. */
  async ofPayee(payTo: string, limit: number): Promise<string[]> {
    return this.redis.zrevrange(this.keys.settlementsOfPayee(payTo), 0, limit - 1);
  }
}
