/**
 * Whether listing vectors of another model than the running one are stored: a change of
 * EMBEDDING_MODEL the embedding worker has not caught up with yet, or vectors stored before vectors
 * named their model. Only then does the kNN search filter on the query's model
 * (src/search/queryBuilder.ts): that filter costs a pass over every listing per search, and is
 * needed only so that a vector of another model's space is never compared with a query.
 *
 * Asked of the index at most every `refreshMs`; a search in between gets the last answer while a
 * new one is fetched. Until the first answer, and after a failed one, the answer is yes (filter).
 */
import { systemClock, type Clock } from '../core/clock.js';

export interface OtherModelVectorsStore {
  otherModelsStored(model: string): Promise<boolean>;
}

export class OtherModelVectors {
  private known?: { stored: boolean; at: number };
  private asking?: Promise<boolean>;

  constructor(
    private readonly store: OtherModelVectorsStore,
    private readonly model: string,
    private readonly refreshMs = 5000,
    private readonly clock: Clock = systemClock,
  ) {}

  async stored(): Promise<boolean> {
    if (this.known && this.clock() - this.known.at < this.refreshMs) return this.known.stored;
    this.asking ??= this.store
      .otherModelsStored(this.model)
      .catch(() => true)
      .then((stored) => {
        this.known = { stored, at: this.clock() };
        this.asking = undefined;
        return stored;
      });
    return this.known ? this.known.stored : this.asking;
  }
}
