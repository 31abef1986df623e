/** In-memory listing owners (store/redis/publishOwners.ts): listing id -> seller token id. */
import type { PublishOwners } from '../../../src/store/redis/publishOwners.js';

export function fakePublishOwners(): { owners: PublishOwners; byListing: Map<string, string> } {
  const byListing = new Map<string, string>();
  const owners = {
    async set(listingId: string, tokenId: string) {
      byListing.set(listingId, tokenId);
    },
    async get(listingId: string) {
      return byListing.get(listingId);
    },
    async forget(listingId: string) {
      byListing.delete(listingId);
    },
  };
  // A class with private members: cast, only these three methods are used.
  return { owners: owners as unknown as PublishOwners, byListing };
}
