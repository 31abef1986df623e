/** The document stored in the listing index (mappings/listings.json), with its internal fields. */
import type { Describe, ListingType, Payment, Signals } from '../shapes/listing.js';

/** Who wrote a listing; kept on the document for operators, never shown to clients. */
export type ListingSource = 'announce' | 'publish' | 'traffic' | 'import' | 'demo' | 'bench';

export type RemovalReason = 'unpublished' | 'probe_failed' | 'stale' | 'operator';

/** The document stored in the listing index (mappings/listings.json). */
export interface ListingDocument {
  id: string;
  type: ListingType;
  resource: string;
  /** HTTP: `METHOD canonicalUrl`; MCP: `serverUri toolName` (DECISIONS "Listing id"). */
  canonicalKey: string;
  method?: string;
  host: string;
  name?: string;
  description?: string;
  tags?: string[];
  /** Identifier words (snake/camel/kebab split) from names, inputs and the path, for BM25. */
  keywords?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  payment: Payment;
  /** Every payment option the resource accepts (the primary one included). */
  accepts?: Array<Payment & { extra?: Record<string, unknown> }>;
  describe?: Describe;
  signals: Signals;
  source: ListingSource;
  owner?: string;
  firstSeen: string;
  lastSeen: string;
  updatedAt: string;
  removed: boolean;
  removedReason?: RemovalReason;
  removedAt?: string;
}
