/**
 * Redis side of the change feed (docs/changes.md): a compacted stream with one entry per listing,
 * the entry of its latest applied change. Appending a change adds a new entry (stream ids only grow,
 * so a reader positioned at an id never misses an entry appended later) and deletes the listing's
 * previous entry, so the stream holds at most one entry per listing ever written and a reader
 * starting from the beginning reads each listing once. Deleting an entry a reader has not reached
 * yet is safe: the newer entry of the same listing lies further on.
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './client.js';
import { redisKeys } from './redisKeys.js';

export interface ChangeEntry {
  /** Stream entry id (`<ms>-<n>`): the position a feed token carries. */
  position: string;
  listingId: string;
}

/** KEYS: stream, latest-entry hash. ARGV: listing ids; ARGV[1] = '1' to add only ids never logged. */
const APPEND_SCRIPT = `
local onlyNew = ARGV[1] == '1'
local added = 0
for i = 2, #ARGV do
  local id = ARGV[i]
  local old = redis.call('HGET', KEYS[2], id)
  if not (onlyNew and old) then
    local entry = redis.call('XADD', KEYS[1], '*', 'id', id)
    redis.call('HSET', KEYS[2], id, entry)
    if old then redis.call('XDEL', KEYS[1], old) end
    added = added + 1
  end
end
return added
`;

/** A stream entry id as RedisClient writes it: milliseconds and a sequence number. */
export const POSITION = /^\d{1,20}-\d{1,20}$/;

export class ChangeLog {
  readonly key: string;
  readonly latestKey: string;
  readonly seededKey: string;
  readonly epochKey: string;

  constructor(private readonly redis: RedisClient, prefix: string) {
    const keys = redisKeys(prefix);
    this.key = keys.changes;
    this.latestKey = keys.changesLatest;
    this.seededKey = keys.changesSeeded;
    this.epochKey = keys.changesEpoch;
  }

  /**
   * A random name of this log, made once. Tokens carry it: a log that was lost and started again
   * has another epoch, so an old token is refused instead of silently skipping the new log's start.
   */
  async epoch(): Promise<string> {
    await this.redis.set(this.epochKey, randomBytes(6).toString('base64url'), 'NX');
    const epoch = await this.redis.get(this.epochKey);
    if (!epoch) throw new Error('change log epoch vanished from Redis');
    return epoch;
  }

  /** Records that these listings changed (after Elasticsearch applied the change). */
  async append(listingIds: string[], options: { onlyNew?: boolean } = {}, chunkSize = 500): Promise<number> {
    const ids = [...new Set(listingIds)];
    let added = 0;
    for (let start = 0; start < ids.length; start += chunkSize) {
      const chunk = ids.slice(start, start + chunkSize);
      added += (await this.redis.eval(APPEND_SCRIPT, 2, this.key, this.latestKey, options.onlyNew ? '1' : '0', ...chunk)) as number;
    }
    return added;
  }

  /** Up to `count` entries after `after` (exclusive; from the beginning when absent), oldest first. */
  async after(after: string | undefined, count: number): Promise<ChangeEntry[]> {
    const raw = (await this.redis.xrange(this.key, after ? `(${after}` : '-', '+', 'COUNT', count)) as Array<[string, string[]]>;
    return raw.map(([position, fields]) => ({ position, listingId: fields[fields.indexOf('id') + 1] ?? '' }));
  }

  /** Whether the one-time seeding from an existing index was done (see ChangeFeedSeeder). */
  async isSeeded(): Promise<boolean> {
    return (await this.redis.exists(this.seededKey)) === 1;
  }

  async markSeeded(at: Date): Promise<void> {
    await this.redis.set(this.seededKey, at.toISOString());
  }
}
