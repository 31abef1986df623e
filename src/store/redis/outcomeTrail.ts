/**
 * What links a settlement to the search before it (issue 45, src/outcomes): each payer's recent
 * searches (a sorted set by time, cut to the link window and to SEARCHES_KEPT entries, expiring with
 * the window), and who paid whom (a set of payers per recipient), so that value going back to
 * where it came from is seen as circular. Single-key commands only (Redis Cluster: each key its own slot).
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

/** A payer's searches kept at most (the newest). */
const SEARCHES_KEPT = 20;
/** Who paid whom is remembered this long after the last such payment. */
const PAID_BY_TTL_SECONDS = 90 * 24 * 3600;

export interface TrailSearch {
  q: string;
  at: number;
}

export class OutcomeTrail {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  /** A search by `payer` at `at` (epoch ms), kept for `windowMs`. */
  async searched(payer: string, search: TrailSearch, windowMs: number): Promise<void> {
    const key = this.keys.outcomeSearches(payer);
    await this.redis
      .multi()
      .zadd(key, search.at, JSON.stringify(search))
      .zremrangebyscore(key, '-inf', search.at - windowMs)
      .zremrangebyrank(key, 0, -SEARCHES_KEPT - 1)
      .pexpire(key, windowMs)
      .exec();
  }

  /** The payer's searches from `since` to `until` (epoch ms), newest first. */
  async searchesBetween(payer: string, since: number, until: number): Promise<TrailSearch[]> {
    const members = await this.redis.zrevrangebyscore(this.keys.outcomeSearches(payer), until, since);
    return members.flatMap((m) => {
      try {
        const parsed = JSON.parse(m) as TrailSearch;
        return typeof parsed.q === 'string' && typeof parsed.at === 'number' ? [parsed] : [];
      } catch {
        return [];
      }
    });
  }

  /**
   * `payer` paid `recipient`: remembered; resolves true when `recipient` had paid `payer` before
   * (the value went round in a circle).
   */
  async paid(payer: string, recipient: string): Promise<boolean> {
    const [, , back] = (await this.redis
      .multi()
      .sadd(this.keys.outcomePaidBy(recipient), payer)
      .expire(this.keys.outcomePaidBy(recipient), PAID_BY_TTL_SECONDS)
      .sismember(this.keys.outcomePaidBy(payer), recipient)
      .exec()) ?? [];
    return back?.[1] === 1;
  }
}
