/**
 * In-memory listing history log, the port ListingHistory records through (the Redis one,
 * store/redis/historyLog.ts, is tested against Redis in test/listing-history.test.ts). Cast like
 * the other class-typed ports: only states, commit and events are used.
 */
import type { HistoryLog, HistoryUpdate } from '../../../src/store/redis/historyLog.js';

export interface FakeHistoryLog {
  log: HistoryLog;
  /** How many commits reached the log (a batch with nothing to record makes none). */
  commits: number;
}

export function fakeHistoryLog(cap = 50): FakeHistoryLog {
  const states = new Map<string, string>();
  const events = new Map<string, string[]>();
  const fake: FakeHistoryLog = { log: undefined as unknown as HistoryLog, commits: 0 };
  const log = {
    async states(ids: string[]) {
      return new Map(ids.filter((id) => states.has(id)).map((id) => [id, states.get(id)!] as const));
    },
    async commit(updates: HistoryUpdate[]) {
      if (updates.length === 0) return;
      fake.commits += 1;
      for (const update of updates) {
        states.set(update.id, update.state);
        // Pushed oldest first onto the head: the list reads newest first, capped like LTRIM.
        events.set(update.id, [...[...update.events].reverse(), ...(events.get(update.id) ?? [])].slice(0, cap));
      }
    },
    async events(id: string, limit: number) {
      return (events.get(id) ?? []).slice(0, limit);
    },
  };
  fake.log = log as unknown as HistoryLog;
  return fake;
}
