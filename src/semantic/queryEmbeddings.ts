/**
 * Query vectors for search: one model run per distinct query text, kept in a small LRU (a search's
 * later pages and popular queries reuse it). Whitespace and case are normalised first: the models'
 * tokenizers lowercase anyway. Each vector names its model: the search compares it only with
 * listing vectors of that model.
 */
import { LruCache, normalizedQuery } from '../core/lruCache.js';
import type { Embedder } from './textEmbedder.js';
import { vectorDigits } from '../core/vectorDigits.js';
import type { OtherModelVectors } from './otherModelVectors.js';

export interface QueryVector {
  /** The model that computed it (EMBEDDING_MODEL). */
  model: string;
  values: number[];
  /** Listing vectors of other models are stored too: the kNN search must leave them out. */
  otherModelsStored: boolean;
}

export class QueryEmbeddings {
  private readonly cache: LruCache<number[]>;

  constructor(
    private readonly embedder: Embedder,
    /** Absent: taken as "other models' vectors may be stored" (the kNN search filters on the model). */
    private readonly otherModels?: OtherModelVectors,
    capacity = 1000,
  ) {
    this.cache = new LruCache(capacity);
  }

  async vectorFor(query: string): Promise<QueryVector | undefined> {
    const key = normalizedQuery(query);
    if (key === '') return undefined;
    const model = this.embedder.model;
    const otherModelsStored = this.otherModels ? this.otherModels.stored() : Promise.resolve(true);
    let values = this.cache.get(key);
    if (!values) {
      const [vector] = (await this.embedder.embed([key], 'query')) ?? [];
      if (!vector) return undefined;
      values = vectorDigits(vector);
      this.cache.set(key, values);
    }
    return { model, values, otherModelsStored: await otherModelsStored };
  }
}
