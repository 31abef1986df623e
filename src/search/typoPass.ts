/**
 * The typo pass (fuzzy matching of the typed words) only when the query needs it: when some word
 * of it is in no listing ("wether", "reciept"). Fuzzy term expansion over every word field was the
 * largest part of a ranked search's cost that the judged set did not need on correctly spelled
 * queries (README "Ranking cost"). One look-up per distinct query, kept for a minute in a small LRU,
 * so a word that sellers start using is known soon after.
 */
import { systemClock, type Clock } from '../core/clock.js';
import { LruCache, normalizedQuery } from '../core/lruCache.js';

export interface Vocabulary {
  knowsEveryWord(text: string): Promise<boolean>;
}

const TTL_MS = 60_000;

export class TypoPass {
  private readonly cache: LruCache<{ needed: boolean; at: number }>;

  constructor(
    private readonly vocabulary: Vocabulary,
    private readonly now: Clock = systemClock,
    capacity = 1000,
  ) {
    this.cache = new LruCache(capacity);
  }

  async neededFor(query: string): Promise<boolean> {
    const key = normalizedQuery(query);
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < TTL_MS) return hit.needed;
    // A failed look-up keeps the pass (the search itself reports an unavailable index).
    const needed = await this.vocabulary.knowsEveryWord(key).then((known) => !known, () => true);
    this.cache.set(key, { needed, at: this.now() });
    return needed;
  }
}
