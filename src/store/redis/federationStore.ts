/**
 * What the reach feature keeps in Redis (src/federation): each upstream catalog's crawl state and the
 * counts of its last crawl (one hash, read by GET /discovery/reach and /metrics), its pages'
 * validators for conditional requests (ETag, Last-Modified) with the page that followed, and
 * what announcing an origin found in its manifests (kept a week for the status lookup).
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

/** An upstream's stored state: every field a string, as Redis keeps it (src/federation reads it). */
export type UpstreamRecord = Record<string, string>;

export interface PageValidators {
  etag?: string;
  lastModified?: string;
  /** JSON of the request that followed this page last time (what a 304 leaves unsaid). */
  next?: string;
}

const ORIGIN_TTL_MS = 7 * 86_400_000;

export class FederationStore {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  async upstream(name: string): Promise<UpstreamRecord> {
    return this.redis.hgetall(this.keys.reachUpstream(name));
  }

  /** Writes the given fields and deletes the `clear` ones, in one transaction. */
  async updateUpstream(name: string, fields: Record<string, string | number>, clear: string[] = []): Promise<void> {
    const key = this.keys.reachUpstream(name);
    const tx = this.redis.multi();
    const values = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
    if (Object.keys(values).length > 0) tx.hset(key, values);
    if (clear.length > 0) tx.hdel(key, ...clear);
    await tx.exec();
  }

  async pageValidators(name: string, pageKey: string): Promise<PageValidators> {
    const [etag, lastModified, next] = await this.redis.hmget(this.keys.reachPages(name), `${pageKey}|etag`, `${pageKey}|lm`, `${pageKey}|next`);
    return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}), ...(next ? { next } : {}) };
  }

  /** Saves a page's validators; a page without any drops what an earlier answer left. */
  async savePage(name: string, pageKey: string, validators: PageValidators): Promise<void> {
    const key = this.keys.reachPages(name);
    const tx = this.redis.multi();
    tx.hdel(key, `${pageKey}|etag`, `${pageKey}|lm`, `${pageKey}|next`);
    const fields: Record<string, string> = {};
    if (validators.etag) fields[`${pageKey}|etag`] = validators.etag;
    if (validators.lastModified) fields[`${pageKey}|lm`] = validators.lastModified;
    if (validators.next) fields[`${pageKey}|next`] = validators.next;
    if (Object.keys(fields).length > 0) tx.hset(key, fields);
    await tx.exec();
  }

  async saveOrigin(origin: string, record: object): Promise<void> {
    await this.redis.set(this.keys.reachOrigin(origin), JSON.stringify(record), 'PX', ORIGIN_TTL_MS);
  }

  async origin(origin: string): Promise<unknown> {
    const raw = await this.redis.get(this.keys.reachOrigin(origin));
    return raw ? (JSON.parse(raw) as unknown) : undefined;
  }
}
