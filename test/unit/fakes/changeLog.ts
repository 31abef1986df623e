/**
 * In-memory change log (store/redis/changeLog.ts), the port the change feed reads, with its
 * compaction rule: one entry per listing, its latest change, at a position that only grows. Tested
 * against Redis in test/change-feed.test.ts.
 */
import type { ChangeEntry, ChangeLog } from '../../../src/store/redis/changeLog.js';

export interface FakeChangeLog {
  log: ChangeLog;
  append(listingIds: string[]): void;
  /** A log lost and started again: another epoch. */
  restart(): void;
}

export function fakeChangeLog(): FakeChangeLog {
  let entries: ChangeEntry[] = [];
  let sequence = 0;
  let epoch = 'epoch-1';
  const log = {
    async epoch() {
      return epoch;
    },
    async after(after: string | undefined, count: number) {
      const from = after === undefined ? -1 : Number(after.split('-')[1]);
      return entries.filter((e) => Number(e.position.split('-')[1]) > from).slice(0, count);
    },
  };
  return {
    // A class with private members: cast, only epoch and after are read by the feed.
    log: log as unknown as ChangeLog,
    append(listingIds) {
      for (const id of listingIds) {
        sequence += 1;
        entries = [...entries.filter((e) => e.listingId !== id), { position: `1700000000000-${sequence}`, listingId: id }];
      }
    },
    restart() {
      entries = [];
      epoch = `epoch-${Number(epoch.split('-')[1]) + 1}`;
    },
  };
}
