/** The document stored in the listing index (mappings/listings.json), with its internal fields. */
import type { Describe, ListingType, Payment, Provenance, Signals } from '../shapes/listing.js';
import type { AcceptedPayment } from '../shapes/listingInput.js';

/** Who wrote a listing; kept on the document for operators, never shown to clients. */
export type ListingSource = 'announce' | 'publish' | 'traffic' | 'import' | 'demo' | 'bench';

/** `opted_out`: its seller took it out and keeps it out (src/publish/optOut.ts). */
export type RemovalReason = 'unpublished' | 'probe_failed' | 'stale' | 'operator' | 'opted_out';

/** The document stored in the listing index (mappings/listings.json). */
export interface ListingDocument {
  id: string;
  type: ListingType;
  resource: string;
  /** HTTP: `METHOD canonicalUrl`; MCP: `serverUri toolName` (README "Writing the catalog: the choices", Identity). */
  canonicalKey: string;
  method?: string;
  host: string;
  name?: string;
  /** MCP: display name (x402 Bazaar serviceName); HTTP listings keep theirs in `describe.title`. */
  title?: string;
  description?: string;
  tags?: string[];
  /** MCP: x402 Bazaar iconUrl, cleaned (HTTP listings keep theirs in `describe.iconUrl`). */
  iconUrl?: string;
  /** Identifier words (snake/camel/kebab split) from names, inputs and the path, for BM25. */
  keywords?: string;
  /** Share of the text that is not stuffing (catalog/keywords.ts textQuality); multiplies text relevance. */
  textQuality?: number;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  payment: Payment;
  /** Every payment option the resource accepts (the primary one included). */
  accepts?: AcceptedPayment[];
  describe?: Describe;
  signals: Signals;
  /** The evidence the listing stands on; each write adds its kind, the others are kept (keptFromStored). */
  provenance?: Provenance;
  source: ListingSource;
  owner?: string;
  firstSeen: string;
  lastSeen: string;
  updatedAt: string;
  removed: boolean;
  removedReason?: RemovalReason;
  removedAt?: string;
  /**
   * Unit vector of the listing's text (src/semantic), written by the embedding worker after the
   * listing is stored; never shown. Absent until then, and again once the text changes.
   */
  embedding?: number[];
  /** Hash of the text `embedding` was computed from: an upsert keeps the vector only while it matches. */
  embeddedTextHash?: string;
  /**
   * The model that computed `embedding` (EMBEDDING_MODEL): a listing counts as embedded only for
   * that model, and a query's vector is compared only with listing vectors of its own model.
   */
  embeddingModel?: string;
}

/** The fields of a stored listing that an upsert of it keeps. */
export interface KeptFields {
  firstSeen?: string;
  signals?: Partial<Signals>;
  owner?: string;
  provenance?: Provenance;
}

/**
 * A stored `provenance` as the code reads it. Listings written before the kinds of evidence existed
 * (issue 25's first cut) hold the discovering source itself ({source, url, firstSeen, ...}): it is
 * their `discovered` kind.
 */
export function storedProvenance(raw: unknown): Provenance {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const value = raw as Record<string, unknown>;
  if ((value.source === 'upstream' || value.source === 'manifest') && typeof value.url === 'string') return { discovered: value as Provenance['discovered'] & object };
  return value as Provenance;
}

/**
 * What an upsert of an existing listing stores: the new document, keeping the stored `firstSeen`,
 * `owner` (when the write names none), `signals` (unless the write replaces them, as imports do)
 * and the kinds of `provenance` the write does not bring.
 */
export function keptFromStored(doc: ListingDocument, stored: KeptFields | undefined, replaceSignals = false): ListingDocument {
  if (!stored) return doc;
  const merged: ListingDocument = { ...doc, firstSeen: stored.firstSeen ?? doc.firstSeen };
  if (!replaceSignals && stored.signals) merged.signals = stored.signals as Signals;
  if (merged.owner === undefined && stored.owner !== undefined) merged.owner = stored.owner;
  // Evidence adds up: this write's kind replaces its own, every other kind seen before stays; where
  // the listing was first discovered is never rewritten by a later claim.
  if (stored.provenance) {
    const before = storedProvenance(stored.provenance);
    merged.provenance = { ...before, ...doc.provenance, ...(before.discovered ? { discovered: before.discovered } : {}) };
  }
  return merged;
}

/**
 * Whether a settlement may write a listing's content (docs/facilitator.md "Evidence before
 * listing"): only a listing traffic created itself, live or removed as stale (paid for again, it
 * comes back), or none at all. A listing a seller published, announced or imported keeps its
 * declared content and price, and one removed for another reason stays removed: traffic only marks
 * them seen. The store applies this where writes land in order (ListingStore.apply); the cataloger
 * asks it too, only to skip needless work.
 */
export function trafficMayRewrite(stored: Partial<Pick<ListingDocument, 'source' | 'removed' | 'removedReason'>> | undefined): boolean {
  return !stored || (stored.source === 'traffic' && (!stored.removed || stored.removedReason === 'stale'));
}
