/**
 * Reads of single listings by id (GET /discovery/resources/{id}, status checks). Search and
 * filtering live in src/search; this is the by-id view of the stored document.
 */
import type { ListingStore } from '../store/elasticsearch/listingStore.js';
import type { ListingDocument } from '../store/listingDocument.js';

export interface CatalogReader {
  /** The stored document, removed ones included (check `removed`); `undefined` when unknown. Real time: no refresh wait. */
  get(id: string): Promise<ListingDocument | undefined>;
  /** Several at once; ids that are unknown are absent from the map. */
  getMany(ids: string[]): Promise<Map<string, ListingDocument>>;
}

export class StoreCatalogReader implements CatalogReader {
  constructor(private readonly store: ListingStore) {}

  get(id: string): Promise<ListingDocument | undefined> {
    return this.store.get(id);
  }

  getMany(ids: string[]): Promise<Map<string, ListingDocument>> {
    return this.store.getMany(ids);
  }
}
