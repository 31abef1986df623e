/**
 * A micro-cache of catalog reads (docs/catalog-reads.md, "Read cache"): the same validated request,
 * under the same ranking tunables, within `ttlMs` (1 s by default) is answered from memory, and
 * identical requests that arrive while one is being read wait for that one instead of each going
 * to Elasticsearch. High-volume clients repeat their popular queries; SPEC 4.2 lets ties reorder
 * between calls seconds apart, and a listing removed or re-priced shows in reads once `ttlMs` has
 * passed. A failed read is never kept.
 */
import { systemClock, type Clock } from '../core/clock.js';
import { LruCache } from '../core/lruCache.js';

export type CacheOutcome = 'hit' | 'miss' | 'joined';

interface Entry<T> {
  at: number;
  value: Promise<T>;
  settled: boolean;
}

export class ReadCache<T> {
  private readonly entries: LruCache<Entry<T>>;

  constructor(
    private readonly ttlMs: number,
    capacity: number,
    private readonly clock: Clock = systemClock,
  ) {
    this.entries = new LruCache(capacity);
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  async read(key: string, load: () => Promise<T>): Promise<{ value: T; outcome: CacheOutcome }> {
    if (!this.enabled) return { value: await load(), outcome: 'miss' };
    const now = this.clock();
    const cached = this.entries.get(key);
    // An entry lives ttlMs from the moment its read started: what it holds is never older than that.
    if (cached && now - cached.at < this.ttlMs) {
      const outcome: CacheOutcome = cached.settled ? 'hit' : 'joined';
      return { value: await cached.value, outcome };
    }
    const entry: Entry<T> = { at: now, value: load(), settled: false };
    this.entries.set(key, entry);
    try {
      const value = await entry.value;
      entry.settled = true;
      return { value, outcome: 'miss' };
    } catch (err) {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw err;
    }
  }
}
