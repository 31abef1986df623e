/**
 * Which seller token published a listing (listing id -> token id), recorded at publish time so an
 * unpublish right after a publish works before the write reached Elasticsearch.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export class PublishOwners {
  private readonly keys: RedisKeys;

  constructor(private readonly redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
  }

  async set(listingId: string, tokenId: string): Promise<void> {
    await this.redis.set(this.keys.publishedOwner(listingId), tokenId);
  }

  /** The owning token id, or undefined when none was recorded. */
  async get(listingId: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.publishedOwner(listingId))) ?? undefined;
  }

  async forget(listingId: string): Promise<void> {
    await this.redis.del(this.keys.publishedOwner(listingId));
  }
}
