/**
 * Settlements that named a resource the catalog does not list yet, waiting for the probe their
 * settlement queued (src/signals/pendingCredits.ts credits them once the resource is listed and
 * its options name the payTo they paid). Bounded whatever the traffic: at most `perListing` per
 * listing (the newest), at most `listings` listings (the least recently added go first), each
 * forgotten `ttlMs` after its last addition. One hash of JSON lists and a sorted set of when each
 * listing was last added to, in one slot (`{credits}`), changed by one script each.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

/** A settlement as the store keeps it: what its transfer moved, the payer and when (epoch ms). */
export interface PendingCredit {
  payer: string;
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  /** Base units, as a decimal string. */
  amount: string;
  /** The amount a metered scheme settled (the listing's median), when it is one. */
  settledAmount?: string;
  /** The settlement's on-chain transaction (provenance.settled). */
  transaction?: string;
  at: number;
}

export interface PendingCreditBounds {
  perListing: number;
  listings: number;
  ttlMs: number;
}

// KEYS: hash, sorted set. ARGV: listing id, entry JSON, now, per-listing cap, listing cap, ttl ms.
const ADD = `
local list = {}
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then list = cjson.decode(current) end
table.insert(list, ARGV[2])
while #list > tonumber(ARGV[4]) do table.remove(list, 1) end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(list))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[6]), 'LIMIT', 0, 100)
for _, id in ipairs(expired) do redis.call('HDEL', KEYS[1], id); redis.call('ZREM', KEYS[2], id) end
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do redis.call('HDEL', KEYS[1], id); redis.call('ZREM', KEYS[2], id) end
end
return 1`;

// KEYS: hash, sorted set. ARGV: now, ttl ms, listing ids... Takes (and deletes) the lists of the ids that have one.
const TAKE = `
local out = {}
for i = 3, #ARGV do
  local id = ARGV[i]
  local at = redis.call('ZSCORE', KEYS[2], id)
  if at then
    local value = redis.call('HGET', KEYS[1], id)
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    if value and tonumber(at) > tonumber(ARGV[1]) - tonumber(ARGV[2]) then table.insert(out, id); table.insert(out, value) end
  end
end
return out`;

type CreditRedis = RedisClient & {
  pendingCreditAdd(hash: string, at: string, ...args: Array<string | number>): Promise<number>;
  pendingCreditTake(hash: string, at: string, ...args: Array<string | number>): Promise<string[]>;
};

export class PendingCredits {
  private readonly keys: RedisKeys;
  private readonly redis: CreditRedis;

  constructor(redis: RedisClient, prefix: string, private readonly bounds: PendingCreditBounds) {
    this.keys = redisKeys(prefix);
    if (!('pendingCreditAdd' in redis)) {
      redis.defineCommand('pendingCreditAdd', { numberOfKeys: 2, lua: ADD });
      redis.defineCommand('pendingCreditTake', { numberOfKeys: 2, lua: TAKE });
    }
    this.redis = redis as CreditRedis;
  }

  async add(listingId: string, credit: PendingCredit): Promise<void> {
    const { perListing, listings, ttlMs } = this.bounds;
    await this.redis.pendingCreditAdd(this.keys.pendingCredits, this.keys.pendingCreditsAt, listingId, JSON.stringify(credit), credit.at, perListing, listings, ttlMs);
  }

  /** Takes what waits for these listings (gone once taken: a replayed write credits nothing twice). */
  async take(listingIds: string[], now: number): Promise<Map<string, PendingCredit[]>> {
    const out = new Map<string, PendingCredit[]>();
    if (listingIds.length === 0) return out;
    const flat = await this.redis.pendingCreditTake(this.keys.pendingCredits, this.keys.pendingCreditsAt, now, this.bounds.ttlMs, ...listingIds);
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const entries = (JSON.parse(flat[i + 1]!) as string[]).map((entry) => JSON.parse(entry) as PendingCredit);
      out.set(flat[i]!, entries);
    }
    return out;
  }

  /** How many listings have credits waiting (for tests and the fuzz's bounds). */
  async size(): Promise<number> {
    return this.redis.zcard(this.keys.pendingCreditsAt);
  }
}
