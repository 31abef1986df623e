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
  /** HTTP: `METHOD canonicalUrl`; MCP: `serverUri toolName` (docs/catalog-write.md "Identity and stored fields"). */
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
   * listing is stored; never shown. Absent until then, and again once the text changes. Indexed
   * for kNN but left out of the stored `_source` (mappings/listings.json): `embeddingPacked` is
   * its stored copy (store/elasticsearch/storedVector.ts).
   */
  embedding?: number[];
  /** The same float32s, little-endian, base64: what a write that rebuilds the document reads back. */
  embeddingPacked?: string;
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

type Discovered = NonNullable<Provenance['discovered']>;
type NamedBy = NonNullable<Provenance['namedBy']>;

/** Sources kept in `provenance.namedBy`: the most recently seen. */
const NAMED_BY_KEPT = 8;

/** `list` with `source` (seen at `at`) in it: one entry per source and URL, its first and last time, newest first, bounded. */
export function withSource(list: NamedBy | undefined, source: Discovered | undefined, at: string): NamedBy {
  const entries = [...(list ?? [])];
  if (source) {
    const i = entries.findIndex((e) => e.source === source.source && e.url === source.url);
    const previous = i >= 0 ? entries.splice(i, 1)[0] : undefined;
    const firstSeen = previous && previous.firstSeen < source.firstSeen ? previous.firstSeen : source.firstSeen;
    entries.push({ source: source.source, ...(source.name !== undefined ? { name: source.name } : {}), url: source.url, firstSeen, lastSeen: at > firstSeen ? at : firstSeen });
  }
  return entries.sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0)).slice(0, NAMED_BY_KEPT);
}

const sameTags = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((t) => b.some((u) => u.toLowerCase() === t.toLowerCase()));

/**
 * The source's claims the listing itself does not contradict (issue 43): the first upstream to
 * name a seller's URL no longer keeps its service name or description on the listing for good once
 * the resource's own 402 or its seller's publish says otherwise. What the listing does not declare
 * stays the source's claim.
 */
export function claimsNotContradicted(discovered: Discovered, doc: Pick<ListingDocument, 'type' | 'title' | 'description' | 'tags' | 'iconUrl' | 'describe'>): Discovered {
  if (!discovered.claims) return discovered;
  const own = doc.type === 'mcp'
    ? { serviceName: doc.title, description: doc.description, tags: doc.tags, icon: doc.iconUrl }
    : { serviceName: doc.describe?.title, description: doc.describe?.description, tags: doc.describe?.tags, icon: doc.describe?.iconUrl };
  const claims = { ...discovered.claims };
  if (claims.serviceName !== undefined && own.serviceName && own.serviceName !== claims.serviceName) delete claims.serviceName;
  if (claims.description !== undefined && own.description && own.description !== claims.description) delete claims.description;
  if (claims.tags !== undefined && own.tags && own.tags.length > 0 && !sameTags(own.tags, claims.tags)) delete claims.tags;
  if (claims.icon !== undefined && own.icon && own.icon !== claims.icon) delete claims.icon;
  const { claims: _old, ...rest } = discovered;
  return Object.keys(claims).length > 0 ? { ...rest, claims } : rest;
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
  // Evidence adds up: this write's kind replaces its own, every other kind seen before stays. Where
  // the listing was first discovered stays, less what the listing itself now says otherwise; every
  // source that named it stays visible with its times (issue 43).
  if (stored.provenance) {
    const before = storedProvenance(stored.provenance);
    const incoming = doc.provenance?.discovered;
    const first = before.discovered ?? incoming;
    merged.provenance = { ...before, ...doc.provenance };
    if (first) merged.provenance.discovered = claimsNotContradicted(first, merged);
    const earlier = before.namedBy ?? (before.discovered ? withSource(undefined, before.discovered, before.discovered.firstSeen) : undefined);
    const named = (doc.provenance?.namedBy ?? []).reduce((list: NamedBy, e) => withSource(list, e, e.lastSeen), earlier ?? []);
    if (named.length > 0) merged.provenance.namedBy = named;
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
