/**
 * Redis side of listing history (docs/lifecycle.md): per listing, a capped list of events (newest
 * first) and the state the next write is compared with. Payloads are opaque JSON strings here;
 * src/lifecycle/history.ts owns their meaning.
 */
import type { RedisClient } from '../core/clients.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export interface HistoryUpdate {
  id: string;
  state: string;
  /** Oldest first; pushed so the list reads newest first. */
  events: string[];
}

export class HistoryLog {
  private readonly stateKey: string;

  private readonly keys: RedisKeys;

  constructor(private readonly redis: RedisClient, prefix: string, private readonly cap: number) {
    this.keys = redisKeys(prefix);
    this.stateKey = this.keys.historyState;
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
    const multi = this.redis.multi();
    for (const { id, state, events } of updates) {
      multi.hset(this.stateKey, id, state);
      if (events.length > 0) multi.lpush(this.eventsKey(id), ...events).ltrim(this.eventsKey(id), 0, this.cap - 1);
    }
    await multi.exec();
  }

  async events(id: string, limit: number): Promise<string[]> {
    return this.redis.lrange(this.eventsKey(id), 0, limit - 1);
  }
}
