/**
 * What the catalog write path (listingStore.ts) reads of stored listings before it writes: the
 * fields an upsert keeps, and the vector that a write rebuilding the document must carry again
 * (storedVector.ts). Two mgets per run at most, each only for the listings that need it.
 */
import type { Client } from '@elastic/elasticsearch';
import type { ListingDocument } from '../listingDocument.js';
import type { CatalogOperation } from '../catalogOperations.js';
import { STORED_VECTOR_SOURCE, storedVector } from './storedVector.js';

/** What an upsert keeps from the stored document: read once per batch with mget. */
export interface StoredState {
  seqNo: number;
  primaryTerm: number;
  firstSeen?: string;
  signals?: ListingDocument['signals'];
  owner?: string;
  provenance?: ListingDocument['provenance'];
  /** Who wrote it and whether it is removed: decide whether a traffic upsert may rewrite it. */
  source?: ListingDocument['source'];
  removed?: boolean;
  removedReason?: ListingDocument['removedReason'];
  embeddedTextHash?: string;
}

/**
 * The vector a write carries onto the version it was read from (`if_seq_no`): an upsert's kept
 * vector, or the one a partial update would otherwise drop.
 */
export interface CarriedVector {
  seqNo: number;
  primaryTerm: number;
  /** Absent: the listing has none (not embedded yet, or removed). */
  vector?: number[];
  model?: string;
}

/** Stored documents carry `null` where an update cleared a field; readers see it absent. */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (field !== null) out[key] = withoutNulls(field);
  }
  return out as T;
}

export async function readStoredState(client: Client, alias: string, ids: string[]): Promise<Map<string, StoredState>> {
  const state = new Map<string, StoredState>();
  if (ids.length === 0) return state;
  const response = await client.mget<Partial<ListingDocument>>({
    index: alias,
    ids,
    _source_includes: ['firstSeen', 'signals', 'owner', 'provenance', 'source', 'removed', 'removedReason', 'embeddedTextHash'],
  });
  for (const doc of response.docs) {
    if (!('found' in doc) || !doc.found) continue;
    const source = withoutNulls(doc._source ?? {});
    state.set(doc._id, {
      seqNo: doc._seq_no ?? 0,
      primaryTerm: doc._primary_term ?? 1,
      ...(source.firstSeen ? { firstSeen: source.firstSeen } : {}),
      ...(source.signals ? { signals: source.signals } : {}),
      ...(source.owner ? { owner: source.owner } : {}),
      ...(source.provenance ? { provenance: source.provenance } : {}),
      ...(source.source ? { source: source.source } : {}),
      ...(source.removed !== undefined ? { removed: source.removed } : {}),
      ...(source.removedReason ? { removedReason: source.removedReason } : {}),
      ...(source.embeddedTextHash ? { embeddedTextHash: source.embeddedTextHash } : {}),
    });
  }
  return state;
}

/** A partial update: Elasticsearch rebuilds the document from `_source`, where the vector is not. */
export function rebuildsFromSource(operation: CatalogOperation): boolean {
  return operation.op === 'touch' || operation.op === 'signals' || operation.op === 'evidence';
}

/**
 * The vectors the run's writes carry: every partial update's, and each upsert's whose text is the
 * one its stored vector was computed from (same text hash). An upsert's listing changed since its
 * first read (another seq_no) carries none: its index operation conflicts and is retried anyway.
 */
export async function readCarriedVectors(
  client: Client,
  alias: string,
  operations: CatalogOperation[],
  stored: ReadonlyMap<string, StoredState>,
): Promise<Map<string, CarriedVector>> {
  const carried = new Map<string, CarriedVector>();
  // A run names each listing once: an id is a partial update's or an upsert's.
  const partial = new Set(operations.filter(rebuildsFromSource).map((o) => o.id));
  const ids = operations.flatMap((o) => {
    if (partial.has(o.id)) return [o.id];
    const state = o.op === 'upsert' ? stored.get(o.id) : undefined;
    return o.op === 'upsert' && state?.embeddedTextHash !== undefined && state.embeddedTextHash === o.textHash ? [o.id] : [];
  });
  if (ids.length === 0) return carried;
  const response = await client.mget<Partial<ListingDocument>>({ index: alias, ids, _source_includes: [...STORED_VECTOR_SOURCE, 'embeddingModel'] });
  for (const doc of response.docs) {
    if (!('found' in doc) || !doc.found || doc._seq_no === undefined || doc._primary_term === undefined) continue;
    // A partial update carries what it read now, guarded by this very version.
    if (!partial.has(doc._id) && stored.get(doc._id)?.seqNo !== doc._seq_no) continue;
    const vector = storedVector(doc._source);
    const model = typeof doc._source?.embeddingModel === 'string' ? doc._source.embeddingModel : undefined;
    carried.set(doc._id, { seqNo: doc._seq_no, primaryTerm: doc._primary_term, ...(vector ? { vector } : {}), ...(model ? { model } : {}) });
  }
  return carried;
}
