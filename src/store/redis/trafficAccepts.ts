/**
 * The payment options traffic has shown for a listing, merged by scheme and network across requests
 * and instances (one hash per listing, kept 90 days after its last sighting).
 */
import type { RedisClient } from './client.js';
import type { AcceptedPayment } from '../../shapes/listingInput.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

const ACCEPTS_TTL_SECONDS = 90 * 24 * 3600;

export class TrafficAccepts {
  private readonly keys: RedisKeys;

  constructor(private readonly redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
  }

  /** Records each accept under its key; returns every option of the listing, by key order, at most `max`. */
  async merge(listingId: string, accepts: ReadonlyMap<string, AcceptedPayment>, max: number): Promise<AcceptedPayment[]> {
    const key = this.keys.trafficAccepts(listingId);
    const fields = Object.fromEntries([...accepts].map(([acceptKey, accept]) => [acceptKey, JSON.stringify(accept)]));
    const results = await this.redis.pipeline().hset(key, fields).expire(key, ACCEPTS_TTL_SECONDS).hgetall(key).exec();
    const all = (results?.[2]?.[1] ?? {}) as Record<string, string>;
    return Object.keys(all)
      .sort()
      .slice(0, max)
      .map((k) => JSON.parse(all[k]!) as AcceptedPayment);
  }
}
