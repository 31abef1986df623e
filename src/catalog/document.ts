/**
 * ListingInput -> ListingDocument: canonical resource, stable id, CAIP-2 networks and the derived
 * search fields. Pure (the clock is passed in), so the write path and tests agree on every field.
 */
import { canonicalIdentity, type CanonicalIdentity } from './identity.js';
import { listingKeywords, textQuality } from './keywords.js';
import { EMPTY_SIGNALS, type Describe, type Payment, type Provenance, type Signals } from '../shapes/listing.js';
import { claimsNotContradicted, withSource, type ListingDocument, type ListingSource } from '../store/listingDocument.js';
import { toCaip2Network } from '../x402/networks.js';
import { cleanIconUrl } from '../x402/bazaarMetadata.js';
import { CheckedListing } from './validation.js';
import type { HttpListingInput, ListingInput, McpListingInput, SignalsInput } from '../shapes/listingInput.js';
import type { WriteContext } from './writer.js';

function normalizePayment<P extends Payment>(payment: P): P {
  const out = { ...payment, network: toCaip2Network(payment.network) ?? payment.network };
  return out;
}

/** Demand evidence (issue 24) an import may carry (exports do). */
export const DEMAND_SIGNALS = ['uniquePayers7d', 'largestPayerShare7d', 'settleCount30d', 'uniquePayers30d'] as const;

/** Absent and null members alike: no lastSettled (never settled), zero counts. */
export function normalizeSignals(signals: SignalsInput | undefined): Signals {
  const out: Signals = { ...EMPTY_SIGNALS };
  if (signals?.lastSettled) out.lastSettled = new Date(signals.lastSettled).toISOString();
  if (typeof signals?.settleCount7d === 'number') out.settleCount7d = signals.settleCount7d;
  if (typeof signals?.rejectionRate7d === 'number') out.rejectionRate7d = signals.rejectionRate7d;
  if (typeof signals?.medianSettledAmount7d === 'string') out.medianSettledAmount7d = signals.medianSettledAmount7d;
  for (const key of DEMAND_SIGNALS) {
    const value = signals?.[key];
    if (typeof value === 'number') out[key] = value;
  }
  return out;
}

function hostOf(resource: string): string {
  return resource.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0] ?? '';
}

/**
 * Tags once each (case-insensitive, first spelling kept): a tag repeated twenty times is one tag,
 * so repeating it cannot buy text relevance.
 */
function distinctTags(tags: string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((tag) => {
    const key = tag.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Only the fields a listing declares; undefined members never reach the stored document. */
function cleanDescribe(describe: Describe | undefined): Describe | undefined {
  if (!describe) return undefined;
  const out: Describe = {};
  if (describe.title !== undefined) out.title = describe.title;
  if (describe.description !== undefined) out.description = describe.description;
  if (describe.tags !== undefined) out.tags = distinctTags(describe.tags);
  const iconUrl = cleanIconUrl(describe.iconUrl);
  if (iconUrl !== undefined) out.iconUrl = iconUrl;
  if (describe.inputs !== undefined) out.inputs = describe.inputs;
  return out;
}

/** The parts of a listing its derived text fields are computed from: the same in its input and its stored document. */
export interface ListingText {
  type: string;
  resource: string;
  name?: string;
  description?: string;
  describe?: { title?: string; description?: string; inputs?: object };
  inputSchema?: unknown;
}

/**
 * The search fields derived from a listing's own text: its identifier words and its text quality.
 * Computed on every write, and again by `npm run reindex` (scripts/lib/listingReindex.ts), so a
 * catalog written before a change to them gets it with the new index.
 */
export function derivedTextFields(listing: ListingText): { keywords: string; textQuality: number } {
  if (listing.type === 'mcp') {
    const properties = (listing.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    return {
      keywords: listingKeywords({ resource: listing.resource, name: listing.name, inputNames: Object.keys(properties) }),
      textQuality: textQuality(listing.name, listing.description),
    };
  }
  return {
    keywords: listingKeywords({ resource: listing.resource, inputNames: Object.keys(listing.describe?.inputs ?? {}) }),
    textQuality: textQuality(listing.describe?.title, listing.describe?.description),
  };
}

function httpDocument(
  input: HttpListingInput,
  { resource, canonicalKey, id }: CanonicalIdentity,
): Omit<ListingDocument, 'source' | 'signals' | 'firstSeen' | 'lastSeen' | 'updatedAt' | 'removed'> {
  const doc: ReturnType<typeof httpDocument> = {
    id,
    type: 'http',
    resource,
    canonicalKey,
    method: (input.method ?? 'GET').toUpperCase(),
    host: hostOf(resource),
    ...derivedTextFields({ type: 'http', resource, describe: input.describe }),
    payment: normalizePayment(input.payment),
  };
  if (input.accepts) doc.accepts = input.accepts.map(normalizePayment);
  const describe = cleanDescribe(input.describe);
  if (describe) doc.describe = describe;
  return doc;
}

function mcpDocument(input: McpListingInput, { resource, canonicalKey, id }: CanonicalIdentity): ReturnType<typeof httpDocument> {
  const doc: ReturnType<typeof httpDocument> = {
    id,
    type: 'mcp',
    resource,
    canonicalKey,
    host: hostOf(resource),
    name: input.name,
    ...(input.title !== undefined ? { title: input.title } : {}),
    description: input.description,
    ...derivedTextFields({ type: 'mcp', resource, name: input.name, description: input.description, inputSchema: input.inputSchema }),
    inputSchema: input.inputSchema,
    payment: normalizePayment(input.payment),
  };
  if (input.outputSchema) doc.outputSchema = input.outputSchema;
  if (input.tags) doc.tags = distinctTags(input.tags);
  const iconUrl = cleanIconUrl(input.iconUrl);
  if (iconUrl !== undefined) doc.iconUrl = iconUrl;
  return doc;
}

/** Writers that bring listings from elsewhere: what they write is `imported` evidence. */
const IMPORTING_SOURCES: ReadonlySet<ListingSource> = new Set(['import', 'demo', 'bench']);

/** The write's evidence, stamped with the time the resource was seen. */
function provenanceOf(context: WriteContext, seen: string): Provenance | undefined {
  const { probed402, published, importedFrom, discovered } = context.evidence ?? {};
  const provenance: Provenance = {};
  if (discovered !== undefined) provenance.discovered = discovered;
  if (probed402 !== undefined) provenance.probed402 = { lastStatus: probed402, lastAt: seen };
  if (published !== undefined) provenance.published = { via: published, at: seen };
  if (importedFrom !== undefined || IMPORTING_SOURCES.has(context.source)) provenance.imported = { source: importedFrom ?? context.source, at: seen };
  return Object.keys(provenance).length > 0 ? provenance : undefined;
}

/**
 * The full document as it is stored when the listing is new. For an existing listing the write
 * path keeps `firstSeen` (and `signals`, unless the input carries them) from the stored one.
 * Given a CheckedListing, its identity is used as computed by the check; a bare input must have
 * passed validateListingInput and is canonicalized here.
 */
export function buildListingDocument(listing: ListingInput | CheckedListing, context: WriteContext, now: Date): ListingDocument {
  const input = listing instanceof CheckedListing ? listing.input : listing;
  const identity = listing instanceof CheckedListing ? listing.identity : canonicalIdentity(input);
  const updatedAt = now.toISOString();
  const seen = context.seenAt ? context.seenAt.toISOString() : updatedAt;
  // Completed in place (a fresh object): the same members in the same order as a spread into a
  // new literal, without copying a dozen members of objects of many shapes.
  const doc = (input.type === 'mcp' ? mcpDocument(input, identity) : httpDocument(input, identity)) as ListingDocument;
  doc.signals = normalizeSignals(input.signals);
  const provenance = provenanceOf(context, seen) ?? {};
  // The source's claims, less what the listing's own 402 or publish says otherwise (issue 43).
  if (provenance.discovered) provenance.discovered = claimsNotContradicted(provenance.discovered, doc);
  const namedBy = withSource(withSource(undefined, provenance.discovered, seen), context.evidence?.alsoNamedBy, seen);
  if (namedBy.length > 0) provenance.namedBy = namedBy;
  if (Object.keys(provenance).length > 0) doc.provenance = provenance;
  doc.source = context.source;
  doc.firstSeen = seen;
  doc.lastSeen = seen;
  doc.updatedAt = updatedAt;
  doc.removed = false;
  if (context.owner !== undefined) doc.owner = context.owner;
  return doc;
}
