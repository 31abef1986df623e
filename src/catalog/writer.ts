/**
 * The one way every producer writes the catalog (publish, announce, verify/settle sightings, demo
 * data, import, benchmarks). Implemented by the durable write path in this folder; other modules
 * depend on this interface only.
 */
import type { FieldError } from '../core/errors.js';
import type { Discovered, Provenance, Signals } from '../shapes/listing.js';
import type { ListingInput } from '../shapes/listingInput.js';
import type { ListingDocument, ListingSource, RemovalReason } from '../store/listingDocument.js';
import type { CheckedListing } from './validation.js';

export interface WriteContext {
  source: ListingSource;
  /** Seller token id for published listings (only its owner may unpublish). */
  owner?: string;
  /** When the resource was seen; defaults to now (injectable for staleness tests). */
  seenAt?: Date;
  /**
   * The evidence this write stands on, stamped with `seenAt` into the listing's `provenance`
   * (imports, demo and benchmark data are `imported` from their source without saying so).
   */
  evidence?: {
    /** The probe's outcome: 'valid_402' for a 402 that lists the resource. */
    probed402?: string;
    /** A seller publish: through the seller SDK or by hand. */
    published?: 'sdk' | 'manual';
    /** An import: the source the operator named (default: the write's `source`). */
    importedFrom?: string;
    /** The upstream or manifest that first named the resource (src/federation); a stored one is kept. */
    discovered?: Discovered;
    /** Another source that named it since (the latest claim): added to `provenance.namedBy`. */
    alsoNamedBy?: Discovered;
  };
}

export interface AcceptedWrite {
  index: number;
  id: string;
  /** The id was not live before this write (publish answers 201 rather than 200). */
  created: boolean;
}

export interface RejectedWrite {
  index: number;
  errors: FieldError[];
}

export interface BulkWriteResult {
  accepted: AcceptedWrite[];
  rejected: RejectedWrite[];
}

export interface UpsertResult {
  id: string;
  /** The id was not live (never written, or removed). */
  created: boolean;
  /**
   * The document the write stores. For a listing that already existed the store keeps its
   * `firstSeen`, `owner` and (unless the input carries them) `signals` (store/elasticsearch/listingStore.ts).
   */
  document: ListingDocument;
}

export interface CatalogWriter {
  /**
   * Validates, canonicalizes and queues an upsert durably; resolves once the write is in the
   * durable stream, with the document the write stores. Throws InvalidListingError (from
   * ./validation.js) listing every failing field.
   */
  upsert(input: ListingInput, context: WriteContext): Promise<UpsertResult>;
  /** The same for a listing checkListingInput (validation.ts) already checked and canonicalized: neither is done again. */
  upsertChecked(listing: CheckedListing, context: WriteContext): Promise<UpsertResult>;
  /** Bulk form: invalid entries are reported, valid ones are queued. */
  upsertMany(inputs: unknown[], context: WriteContext): Promise<BulkWriteResult>;
  /** Marks a listing as seen again (a 402 report or a settlement) without changing its content; an unknown id is dropped. */
  touch(id: string, seenAt?: Date): Promise<void>;
  /** Takes a listing out of search results. */
  remove(id: string, reason: RemovalReason): Promise<void>;
  /** Adds evidence to a listing's `provenance` without changing anything else (a failed probe that keeps it); an unknown id is dropped. */
  recordEvidence(id: string, provenance: Provenance): Promise<void>;
  /**
   * Replaces the `signals` block of listings (the signals flusher); unknown ids are dropped.
   * `firstSettled` (with `lastSettled`) becomes `provenance.settled`.
   */
  updateSignals(updates: Array<{ id: string; signals: Signals & { firstSettled?: string; firstTransaction?: string; lastTransaction?: string } }>): Promise<void>;
}
