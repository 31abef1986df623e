/**
 * The one way every producer writes the catalog (publish, announce, verify/settle sightings, demo
 * data, import, benchmarks). Implemented by the durable write path in this folder; other modules
 * depend on this interface only.
 */
import type { Describe, ListingSource, McpListing, Payment, RemovalReason, Signals } from './listing.js';

export interface HttpListingInput {
  type: 'http';
  /** Endpoint URL; canonicalized by the write path (DECISIONS "Canonical URL"). */
  resource: string;
  /** HTTP method, default GET; part of the canonical key. */
  method?: string;
  /** x402 `routeTemplate` (`/users/:userId`), turned into a brace template. */
  routeTemplate?: string;
  payment: Payment;
  accepts?: Array<Payment & { extra?: Record<string, unknown> }>;
  describe?: Describe;
  signals?: SignalsInput;
}

/**
 * Signals as imports carry them: in part, and `null` (the block or a member) for "never settled",
 * as other catalogs export it; the write path stores absent/zero for null.
 */
export type SignalsInput = { [K in keyof Signals]?: Signals[K] | null } | null;

/** The id is derived from the resource and debug belongs to reads; signals may be seeded in part (imports carry them). */
export type McpListingInput = Omit<McpListing, 'id' | 'signals' | 'debug'> & { signals?: SignalsInput };

export type ListingInput = HttpListingInput | McpListingInput;

export interface WriteContext {
  source: ListingSource;
  /** Seller token id for published listings (only its owner may unpublish). */
  owner?: string;
  /** When the resource was seen; defaults to now (injectable for staleness tests). */
  seenAt?: Date;
}

export interface InvalidField {
  path: string;
  message: string;
}

export interface AcceptedWrite {
  index: number;
  id: string;
  /** The id was not live before this write (publish answers 201 rather than 200). */
  created: boolean;
}

export interface RejectedWrite {
  index: number;
  errors: InvalidField[];
}

export interface BulkWriteResult {
  accepted: AcceptedWrite[];
  rejected: RejectedWrite[];
}

export interface CatalogWriter {
  /**
   * Validates, canonicalizes and queues an upsert durably; resolves with the listing id once the
   * write is in the durable stream. `created`: the id was not live (never written, or removed).
   * Throws InvalidListingError (from ./validation.js) listing every failing field.
   */
  upsert(input: ListingInput, context: WriteContext): Promise<{ id: string; created: boolean }>;
  /** Bulk form: invalid entries are reported, valid ones are queued. */
  upsertMany(inputs: unknown[], context: WriteContext): Promise<BulkWriteResult>;
  /** Marks a listing as seen again (a 402 report or a settlement) without changing its content; an unknown id is dropped. */
  touch(id: string, seenAt?: Date): Promise<void>;
  /** Takes a listing out of search results. */
  remove(id: string, reason: RemovalReason): Promise<void>;
  /** Replaces the `signals` block of listings (the signals flusher); unknown ids are dropped. */
  updateSignals(updates: Array<{ id: string; signals: Signals }>): Promise<void>;
}
