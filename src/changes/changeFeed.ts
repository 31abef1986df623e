/**
 * The change feed for mirrors (GET /discovery/changes, docs/changes.md). Every write the ingest
 * consumer applied to Elasticsearch is logged, after it was applied, in a compacted Redis stream
 * (src/store/redis/changeLog.ts); a page is the next entries after the token's position with each
 * listing's current stored document, read in real time (mget: no refresh wait), so a change is
 * never announced before it can be read and a token never passes a change logged later.
 */
import type { CatalogOperation } from '../store/catalogOperations.js';
import { toListing } from '../catalog/listing.js';
import type { Listing } from '../shapes/listing.js';
import type { RemovalReason } from '../store/listingDocument.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { ChangeLog } from '../store/redis/changeLog.js';
import type { ChangeTokenCodec } from './changeToken.js';
import type { FeedRequest } from './feedRequest.js';

export type FeedChange =
  | { id: string; listing: Listing }
  | { id: string; removed: true; removedAt: string; reason: RemovalReason | 'deleted' };

export interface FeedPage {
  changes: FeedChange[];
  /** Pass as `since` to get what changed after this page (present on every page, even an empty one). */
  nextSince: string;
  /** More changes are already waiting: ask again at once rather than after the polling interval. */
  hasMore: boolean;
}

/** Changes that matter to a mirror: `touch` only moves the internal `lastSeen`. */
export function feedRelevant(operations: CatalogOperation[]): string[] {
  return operations.filter((o) => o.op !== 'touch').map((o) => o.id);
}

export class ChangeFeed {
  constructor(
    private readonly log: ChangeLog,
    private readonly reader: CatalogReader,
    private readonly tokens: ChangeTokenCodec,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async page(request: FeedRequest): Promise<FeedPage> {
    const epoch = await this.log.epoch();
    const after = request.since === undefined ? undefined : await this.tokens.decode(request.since, epoch);
    const entries = await this.log.after(after, request.limit + 1);
    const hasMore = entries.length > request.limit;
    const page = entries.slice(0, request.limit);
    const docs = await this.reader.getMany(page.map((e) => e.listingId));
    const changes: FeedChange[] = page.map(({ listingId: id }) => {
      const doc = docs.get(id);
      if (doc && !doc.removed) return { id, listing: toListing(doc) };
      // Gone from the index altogether (an operator deleted it): a tombstone all the same, so a mirror drops it too.
      if (!doc) return { id, removed: true, removedAt: this.now().toISOString(), reason: 'deleted' };
      return { id, removed: true, removedAt: doc.removedAt ?? doc.updatedAt, reason: doc.removedReason ?? 'operator' };
    });
    const last = page[page.length - 1]?.position ?? after;
    return { changes, nextSince: await this.tokens.encode(last ?? '0-0', epoch), hasMore };
  }
}
