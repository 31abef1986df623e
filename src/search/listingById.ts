/**
 * GET /discovery/resources/{id}: one live listing by id. An announce answers with an id before its
 * 402 reveals a routeTemplate, which then gives the listing another id; such an announced id is
 * followed to the listing it became (docs/announce.md).
 */
import { NotFound } from '../core/errors.js';
import { isListingId } from '../core/listingId.js';
import { toListing } from '../catalog/listing.js';
import type { Listing } from '../shapes/listing.js';
import type { CatalogReader } from '../catalog/reader.js';

export class ListingById {
  constructor(
    private readonly reader: CatalogReader,
    /** The listing an announced id became, when it differs (the announce module knows). */
    private readonly announcedAs: (id: string) => Promise<string | undefined>,
  ) {}

  /** The listing in its response shape; NotFound when the id is malformed, unknown or removed. */
  async read(id: string): Promise<Listing> {
    const listing = await this.findListing(id);
    if (!listing) throw new NotFound(`No listing ${id}.`);
    return listing;
  }

  /** The same, undefined instead of NotFound (MCP get_resource answers a tool error of its own). */
  async findListing(id: string): Promise<Listing | undefined> {
    if (!isListingId(id)) return undefined;
    let doc = await this.reader.get(id);
    if (!doc || doc.removed) {
      const listingId = await this.announcedAs(id);
      if (listingId && listingId !== id) doc = await this.reader.get(listingId);
    }
    return doc && !doc.removed ? toListing(doc) : undefined;
  }
}
