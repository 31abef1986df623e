/**
 * Query vectors for search: one model run per distinct query text, kept in a small LRU (a search's
 * later pages and popular queries reuse it). Whitespace and case are normalised first: the model's
 * tokenizer lowercases anyway.
 */
import { LruCache, normalizedQuery } from '../core/lruCache.js';
import type { Embedder } from './textEmbedder.js';

export class QueryEmbeddings {
  private readonly cache: LruCache<number[]>;

  constructor(
    private readonly embedder: Embedder,
    capacity = 1000,
  ) {
    this.cache = new LruCache(capacity);
  }

  async vectorFor(query: string): Promise<number[] | undefined> {
    const key = normalizedQuery(query);
    if (key === '') return undefined;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const [vector] = (await this.embedder.embed([key])) ?? [];
    if (!vector) return undefined;
    const values = Array.from(vector);
    this.cache.set(key, values);
    return values;
  }
}
