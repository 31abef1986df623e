/**
 * Publishing MCP tools with a seller token: validation, host binding, ownership, and the write
 * through the catalog writer. Ownership (listing id -> token id) is recorded here at publish time
 * so that an unpublish right after a publish works before the write reached Elasticsearch.
 */
import type { PublishOwners } from '../store/redis/publishOwners.js';
import { toListing } from '../catalog/listing.js';
import type { McpListing } from '../shapes/listing.js';
import { keptFromStored, type KeptFields } from '../store/listingDocument.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { Forbidden, InvalidInput, NotFound, type FieldError } from '../core/errors.js';
import { hostIsBound, resourceAuthority } from './hostBinding.js';
import { validatePublishBody } from './publishSchema.js';
import type { SellerToken } from './sellerTokens.js';
import { isListingId } from '../core/listingId.js';

/** What unpublish needs to know about a listing it has no ownership record for. */
export interface ListingLookup {
  get(id: string): Promise<(KeptFields & { removed?: boolean }) | undefined>;
}

export interface PublishResult {
  created: boolean;
  listing: McpListing;
}

function invalidListing(errors: FieldError[]): InvalidInput {
  return new InvalidInput('invalid_listing', `The listing has ${errors.length} invalid field(s); see errors.`, errors);
}

export class PublishService {
  constructor(
    private readonly deps: { writer: CatalogWriter; lookup?: ListingLookup; owners: PublishOwners },
  ) {}

  /**
   * Throws InvalidInput invalid_listing (every failing field) or Forbidden (a host the token is not
   * bound to). `via`: whether the seller SDK sent it (its provenance says so).
   */
  async publish(token: SellerToken, body: unknown, via: 'sdk' | 'manual' = 'manual'): Promise<PublishResult> {
    const validation = validatePublishBody(body);
    if (!validation.ok) {
      throw invalidListing(validation.errors);
    }
    const input = validation.input;
    const authority = resourceAuthority(input.resource);
    if (!authority || !hostIsBound(token.hosts, authority)) {
      throw new Forbidden(`This seller token may publish for ${token.hosts.join(', ')} only, not for ${authority ?? input.resource}.`);
    }
    const { created, document } = await this.deps.writer.upsertChecked(validation.listing, { source: 'publish', owner: token.id, evidence: { published: via } });
    // A later publish by another token bound to the host (a rotated token) takes the listing over.
    await this.deps.owners.set(document.id, token.id);
    // A republish keeps the listing's signals: show them as the store will keep them.
    const existing = created ? undefined : await this.deps.lookup?.get(document.id).catch(() => undefined);
    const listing = toListing(keptFromStored(document, existing)) as McpListing;
    return { created, listing };
  }

  /** Takes the token's own listing out of search: NotFound when unknown, Forbidden when another seller's. */
  async unpublish(token: SellerToken, id: string): Promise<void> {
    if (!isListingId(id)) throw new NotFound(`No listing ${id}.`);
    const owner = await this.deps.owners.get(id);
    if (owner === undefined) {
      const listing = await this.deps.lookup?.get(id);
      if (!listing || listing.removed) throw new NotFound(`No listing ${id}.`);
      throw new Forbidden(`Listing ${id} was not published with this seller token.`);
    }
    if (owner !== token.id) {
      throw new Forbidden(`Listing ${id} belongs to another seller token.`);
    }
    await this.deps.writer.remove(id, 'unpublished');
    await this.deps.owners.forget(id);
  }
}
