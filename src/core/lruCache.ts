/**
 * A bounded cache that forgets its least recently used entry first: the per-query caches of the
 * search path (query embeddings, the typo-pass decision) keep popular queries and a search's later
 * pages without growing with every distinct query. A Map iterates in insertion order, so a hit is
 * re-inserted and the first key is always the least recently used.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** A query as those caches key it: trimmed, runs of whitespace as one space, lower-cased. */
export function normalizedQuery(query: string): string {
  return query.trim().replace(/\s+/g, ' ').toLowerCase();
}
