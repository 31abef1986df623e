/**
 * An in-memory CatalogWriter (src/catalog/writer.ts), the port every producer writes through. It
 * validates and builds documents with the real catalog code (checkListingInput,
 * buildListingDocument, keptFromStored), so what a test reads back is what the durable write path
 * would store; only the stream and Elasticsearch are left out (test/catalog-write.test.ts has them).
 */
import { buildListingDocument } from '../../../src/catalog/document.js';
import { checkListingInput, InvalidListingError, type CheckedListing } from '../../../src/catalog/validation.js';
import type { BulkWriteResult, CatalogWriter, UpsertResult, WriteContext } from '../../../src/catalog/writer.js';
import type { Provenance, Signals } from '../../../src/shapes/listing.js';
import type { ListingInput } from '../../../src/shapes/listingInput.js';
import { keptFromStored, type ListingDocument, type RemovalReason } from '../../../src/store/listingDocument.js';
import type { Clock } from '../../../src/core/clock.js';

export type WriteCall =
  | { op: 'upsert'; id: string; source: string }
  | { op: 'touch'; id: string; seenAt: string }
  | { op: 'remove'; id: string; reason: RemovalReason }
  | { op: 'signals'; id: string }
  | { op: 'evidence'; id: string };

export interface FakeCatalogWriter extends CatalogWriter {
  /** The stored documents by id, removed ones included. */
  readonly documents: Map<string, ListingDocument>;
  /** Every write in the order it was asked for. */
  readonly calls: WriteCall[];
}

export function fakeCatalogWriter(now: Clock = Date.now): FakeCatalogWriter {
  const documents = new Map<string, ListingDocument>();
  const calls: WriteCall[] = [];

  function store(listing: CheckedListing, context: WriteContext): UpsertResult {
    const fresh = buildListingDocument(listing, context, new Date(now()));
    const stored = documents.get(fresh.id);
    const document = keptFromStored(fresh, stored, listing.input.signals !== undefined);
    documents.set(document.id, document);
    calls.push({ op: 'upsert', id: document.id, source: context.source });
    return { id: document.id, created: !stored || stored.removed, document };
  }

  const writer: FakeCatalogWriter = {
    documents,
    calls,
    async upsert(input: ListingInput, context: WriteContext) {
      const checked = checkListingInput(input);
      if (!checked.ok) throw new InvalidListingError(checked.errors);
      return store(checked.listing, context);
    },
    async upsertChecked(listing, context) {
      return store(listing, context);
    },
    async upsertMany(inputs: unknown[], context: WriteContext): Promise<BulkWriteResult> {
      const result: BulkWriteResult = { accepted: [], rejected: [] };
      inputs.forEach((input, index) => {
        const checked = checkListingInput(input);
        if (!checked.ok) result.rejected.push({ index, errors: checked.errors });
        else result.accepted.push({ index, ...(({ id, created }) => ({ id, created }))(store(checked.listing, context)) });
      });
      return result;
    },
    async touch(id: string, seenAt = new Date(now())) {
      calls.push({ op: 'touch', id, seenAt: seenAt.toISOString() });
      const doc = documents.get(id);
      if (doc) doc.lastSeen = seenAt.toISOString();
    },
    async remove(id: string, reason: RemovalReason) {
      calls.push({ op: 'remove', id, reason });
      const doc = documents.get(id);
      if (doc) Object.assign(doc, { removed: true, removedReason: reason, removedAt: new Date(now()).toISOString() });
    },
    async recordEvidence(id: string, provenance: Provenance) {
      calls.push({ op: 'evidence', id });
      const doc = documents.get(id);
      if (doc) doc.provenance = { ...doc.provenance, ...provenance };
    },
    async updateSignals(updates: Array<{ id: string; signals: Signals & { firstSettled?: string } }>) {
      for (const { id, signals: { firstSettled, ...signals } } of updates) {
        calls.push({ op: 'signals', id });
        const doc = documents.get(id);
        if (!doc) continue;
        doc.signals = signals;
        if (firstSettled && signals.lastSettled) doc.provenance = { ...doc.provenance, settled: { first: firstSettled, last: signals.lastSettled } };
      }
    },
  };
  return writer;
}
