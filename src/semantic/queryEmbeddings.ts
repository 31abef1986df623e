/**
 * Query vectors for search: one model run per distinct query text, kept in a small LRU (a search's
 * later pages and popular queries reuse it). Whitespace and case are normalised first: the model's
 * tokenizer lowercases anyway.
 */
import type { Embedder } from './textEmbedder.js';

export class QueryEmbeddings {
  private readonly cache = new Map<string, number[]>();

  constructor(
    private readonly embedder: Embedder,
    private readonly capacity = 1000,
  ) {}

  async vectorFor(query: string): Promise<number[] | undefined> {
    const key = query.trim().replace(/\s+/g, ' ').toLowerCase();
    if (key === '') return undefined;
    const hit = this.cache.get(key);
    if (hit) {
      // Re-inserted: a Map iterates in insertion order, so the first key is the least recently used.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const [vector] = (await this.embedder.embed([key])) ?? [];
    if (!vector) return undefined;
    const values = Array.from(vector);
    this.cache.set(key, values);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
    return values;
  }
}
