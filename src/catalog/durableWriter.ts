/**
 * The CatalogWriter every producer uses: validates and canonicalizes a listing, then appends the
 * write to the durable Redis stream. A call resolves once the write is in the stream; the ingest
 * consumer (writeConsumer.ts) applies it to Elasticsearch.
 */
import { systemClock, type Clock } from '../core/clock.js';
import type { AppendRequest, WriteStream } from '../store/redis/writeStream.js';
import { buildListingDocument, DEMAND_SIGNALS } from './document.js';
import type { Provenance, Signals } from '../shapes/listing.js';
import type { RemovalReason } from '../store/listingDocument.js';
import { encodeOperation, type CatalogOperation } from '../store/catalogOperations.js';
import { assertValidListingInput, checkListingInput, InvalidListingError, type CheckedListing } from './validation.js';
import type { ListingInput } from '../shapes/listingInput.js';
import type { BulkWriteResult, CatalogWriter, UpsertResult, WriteContext } from './writer.js';
import type { ListingDocument } from '../store/listingDocument.js';

/** The sellers' opt-outs (store/redis/optOuts.ts): an opted-out listing is never written again until lifted. */
export interface OptedOut {
  which(listingIds: readonly string[]): Promise<Set<string>>;
}

const OPTED_OUT = { path: 'resource', message: 'its seller took this listing out of the catalog (opted_out) and keeps it out until the seller lifts it' };

export class DurableCatalogWriter implements CatalogWriter {
  constructor(
    private readonly stream: WriteStream,
    private readonly clock: Clock = systemClock,
    private readonly optedOut?: OptedOut,
  ) {}

  private upsertRequest(listing: CheckedListing, context: WriteContext): AppendRequest & { document: ListingDocument } {
    const doc = buildListingDocument(listing, context, new Date(this.clock()));
    const operation: CatalogOperation = { op: 'upsert', id: doc.id, doc, replaceSignals: listing.input.signals !== undefined };
    return { document: doc, listingId: doc.id, payload: encodeOperation(operation), live: { id: doc.id, present: true } };
  }

  async upsert(input: ListingInput, context: WriteContext): Promise<UpsertResult> {
    return this.upsertChecked(assertValidListingInput(input), context);
  }

  async upsertChecked(listing: CheckedListing, context: WriteContext): Promise<UpsertResult> {
    const request = this.upsertRequest(listing, context);
    // Whoever writes it (a probe, a publish, an import): the seller's opt-out holds (issue 43).
    if ((await this.optedOut?.which([request.document.id]))?.size) throw new InvalidListingError([OPTED_OUT]);
    const [created] = await this.stream.append([request]);
    return { id: request.document.id, created: created === true, document: request.document };
  }

  async upsertMany(inputs: unknown[], context: WriteContext): Promise<BulkWriteResult> {
    const result: BulkWriteResult = { accepted: [], rejected: [] };
    const requests: Array<AppendRequest & { document: ListingDocument; index: number }> = [];
    inputs.forEach((input, index) => {
      const checked = checkListingInput(input);
      if (!checked.ok) result.rejected.push({ index, errors: checked.errors });
      else {
        const request = this.upsertRequest(checked.listing, context) as AppendRequest & { document: ListingDocument; index: number };
        request.index = index;
        requests.push(request);
      }
    });
    const refused = (await this.optedOut?.which(requests.map((r) => r.document.id))) ?? new Set<string>();
    const kept = requests.filter((request) => {
      if (!refused.has(request.document.id)) return true;
      result.rejected.push({ index: request.index, errors: [OPTED_OUT] });
      return false;
    });
    const created = await this.stream.append(kept);
    kept.forEach((request, i) => result.accepted.push({ index: request.index, id: request.document.id, created: created[i] === true }));
    result.rejected.sort((a, b) => a.index - b.index);
    return result;
  }

  async touch(id: string, seenAt?: Date): Promise<void> {
    const operation: CatalogOperation = { op: 'touch', id, seenAt: (seenAt ?? new Date(this.clock())).toISOString() };
    await this.stream.append([{ listingId: id, payload: encodeOperation(operation) }]);
  }

  async remove(id: string, reason: RemovalReason): Promise<void> {
    const operation: CatalogOperation = { op: 'remove', id, reason, at: new Date(this.clock()).toISOString() };
    await this.stream.append([{ listingId: id, payload: encodeOperation(operation), live: { id, present: false } }]);
  }

  async recordEvidence(id: string, provenance: Provenance): Promise<void> {
    await this.stream.append([{ listingId: id, payload: encodeOperation({ op: 'evidence', id, provenance }) }]);
  }

  async updateSignals(updates: Array<{ id: string; signals: Signals & { firstSettled?: string; firstTransaction?: string; lastTransaction?: string } }>): Promise<void> {
    const requests = updates.map(({ id, signals }) => {
      const clean: Signals = { settleCount7d: signals.settleCount7d, rejectionRate7d: signals.rejectionRate7d };
      if (signals.lastSettled) clean.lastSettled = signals.lastSettled;
      if (signals.medianSettledAmount7d) clean.medianSettledAmount7d = signals.medianSettledAmount7d;
      if (signals.health) clean.health = signals.health;
      for (const key of DEMAND_SIGNALS) if (typeof signals[key] === 'number') clean[key] = signals[key];
      const settled = signals.firstSettled && signals.lastSettled
        ? {
            first: signals.firstSettled,
            last: signals.lastSettled,
            ...(signals.firstTransaction ? { firstTransaction: signals.firstTransaction } : {}),
            ...(signals.lastTransaction ? { lastTransaction: signals.lastTransaction } : {}),
          }
        : undefined;
      return { listingId: id, payload: encodeOperation({ op: 'signals', id, signals: clean, ...(settled ? { settled } : {}) }) };
    });
    await this.stream.append(requests);
  }
}
