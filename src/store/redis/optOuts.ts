/**
 * Sellers' opt-outs (issue 43, item 10; src/publish/optOut.ts): a listing its seller took out of the
 * catalog, kept out against re-probes, traffic, manifests and federation until the seller lifts
 * it. One hash per listing id, kept until lifted (an opt-out that expired by itself would let the
 * next crawl list the resource again). What it stores is bounded: the resource (2,048 characters at
 * most, as every listing's) and a reason of at most 200.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export interface OptOutRecord {
  resource: string;
  method: string;
  /** The seller's words, at most 200 characters. */
  reason: string;
  /** How the seller proved the listing is its own: `token:<id>` or `payTo:<address>`. */
  by: string;
  /** Epoch ms. */
  at: number;
}

export class OptOuts {
  private readonly keys: RedisKeys;

  constructor(private readonly redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
  }

  async set(listingId: string, record: OptOutRecord): Promise<void> {
    await this.redis.hset(this.keys.optOut(listingId), { ...record, reason: record.reason.slice(0, 200), at: String(record.at) });
  }

  async get(listingId: string): Promise<OptOutRecord | undefined> {
    const raw = await this.redis.hgetall(this.keys.optOut(listingId));
    if (!raw.resource) return undefined;
    return { resource: raw.resource, method: raw.method ?? 'GET', reason: raw.reason ?? '', by: raw.by ?? '', at: Number(raw.at ?? 0) };
  }

  /** Which of these listings are opted out (each its own key: one pipelined EXISTS each). */
  async which(listingIds: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    if (listingIds.length === 0) return out;
    const pipeline = this.redis.pipeline();
    for (const id of listingIds) pipeline.exists(this.keys.optOut(id));
    const results = (await pipeline.exec()) ?? [];
    results.forEach(([err, value], i) => {
      if (err) throw err;
      if (value === 1) out.add(listingIds[i]!);
    });
    return out;
  }

  /** Lifts it; true when there was one. */
  async lift(listingId: string): Promise<boolean> {
    return (await this.redis.del(this.keys.optOut(listingId))) === 1;
  }
}
