/**
 * Redis side of listing history (docs/changes.md): per listing, a capped list of events (newest
 * first) and the state the next write is compared with. Payloads are opaque JSON strings here;
 * src/changes/history.ts owns their meaning.
 */
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export interface HistoryUpdate {
  id: string;
  state: string;
  /** Oldest first; pushed so the list reads newest first. */
  events: string[];
}

/**
 * KEYS: the state hash, then one events list per update. ARGV: the cap, then per update its id,
 * state, event count and events (oldest first). One script per batch instead of a transaction of
 * three commands per listing: the same writes, atomically, for a fraction of the client's CPU.
 */
const COMMIT_SCRIPT = `
local cap = tonumber(ARGV[1])
local a = 2
for k = 2, #KEYS do
  local n = tonumber(ARGV[a + 2])
  redis.call('HSET', KEYS[1], ARGV[a], ARGV[a + 1])
  if n > 0 then
    for e = a + 3, a + 2 + n do redis.call('LPUSH', KEYS[k], ARGV[e]) end
    redis.call('LTRIM', KEYS[k], 0, cap - 1)
  end
  a = a + 3 + n
end
return #KEYS - 1
`;

type CommittingRedis = RedisClient & { historyCommit(numberOfKeys: number, ...args: Array<string | number>): Promise<number> };

export class HistoryLog {
  private readonly stateKey: string;

  private readonly keys: RedisKeys;

  private readonly committing: CommittingRedis;

  constructor(private readonly redis: RedisClient, prefix: string, private readonly cap: number) {
    this.keys = redisKeys(prefix);
    this.stateKey = this.keys.historyState;
    if (!('historyCommit' in redis)) redis.defineCommand('historyCommit', { lua: COMMIT_SCRIPT });
    this.committing = redis as CommittingRedis;
  }

  private eventsKey(id: string): string {
    return this.keys.historyEvents(id);
  }

  async states(ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (ids.length === 0) return out;
    const values = await this.redis.hmget(this.stateKey, ...ids);
    ids.forEach((id, i) => {
      if (values[i] != null) out.set(id, values[i]!);
    });
    return out;
  }

  async commit(updates: HistoryUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    const keys: string[] = [this.stateKey];
    const args: Array<string | number> = [this.cap];
    for (const { id, state, events } of updates) {
      keys.push(this.eventsKey(id));
      args.push(id, state, events.length, ...events);
    }
    await this.committing.historyCommit(keys.length, ...keys, ...args);
  }

  async events(id: string, limit: number): Promise<string[]> {
    return this.redis.lrange(this.eventsKey(id), 0, limit - 1);
  }
}
