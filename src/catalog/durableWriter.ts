/**
 * The CatalogWriter every producer uses: validates and canonicalizes a listing, then appends the
 * write to the durable Redis stream. A call resolves once the write is in the stream; the ingest
 * consumer (ingestWorker.ts) applies it to Elasticsearch.
 */
import type { AppendRequest, WriteStream } from '../store/writeStream.js';
import { buildListingDocument } from './document.js';
import type { RemovalReason, Signals } from './listing.js';
import { encodeOperation, type CatalogOperation } from './operations.js';
import { InvalidListingError, validateListingInput } from './validation.js';
import type { BulkWriteResult, CatalogWriter, ListingInput, WriteContext } from './writer.js';

export class DurableCatalogWriter implements CatalogWriter {
  constructor(
    private readonly stream: WriteStream,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private upsertRequest(input: ListingInput, context: WriteContext): AppendRequest & { id: string } {
    const doc = buildListingDocument(input, context, this.now());
    const operation: CatalogOperation = { op: 'upsert', id: doc.id, doc, replaceSignals: input.signals !== undefined };
    return { id: doc.id, listingId: doc.id, payload: encodeOperation(operation), live: { id: doc.id, present: true } };
  }

  async upsert(input: ListingInput, context: WriteContext): Promise<{ id: string; created: boolean }> {
    const errors = validateListingInput(input);
    if (errors.length > 0) throw new InvalidListingError(errors);
    const request = this.upsertRequest(input, context);
    const [created] = await this.stream.append([request]);
    return { id: request.id, created: created === true };
  }

  async upsertMany(inputs: unknown[], context: WriteContext): Promise<BulkWriteResult> {
    const result: BulkWriteResult = { accepted: [], rejected: [] };
    const requests: Array<AppendRequest & { id: string; index: number }> = [];
    inputs.forEach((input, index) => {
      const errors = validateListingInput(input);
      if (errors.length > 0) result.rejected.push({ index, errors });
      else requests.push({ ...this.upsertRequest(input as ListingInput, context), index });
    });
    const created = await this.stream.append(requests);
    requests.forEach((request, i) => result.accepted.push({ index: request.index, id: request.id, created: created[i] === true }));
    return result;
  }

  async touch(id: string, seenAt?: Date): Promise<void> {
    const operation: CatalogOperation = { op: 'touch', id, seenAt: (seenAt ?? this.now()).toISOString() };
    await this.stream.append([{ listingId: id, payload: encodeOperation(operation) }]);
  }

  async remove(id: string, reason: RemovalReason): Promise<void> {
    const operation: CatalogOperation = { op: 'remove', id, reason, at: this.now().toISOString() };
    await this.stream.append([{ listingId: id, payload: encodeOperation(operation), live: { id, present: false } }]);
  }

  async updateSignals(updates: Array<{ id: string; signals: Signals }>): Promise<void> {
    const requests = updates.map(({ id, signals }) => {
      const clean: Signals = { settleCount7d: signals.settleCount7d, rejectionRate7d: signals.rejectionRate7d };
      if (signals.lastSettled) clean.lastSettled = signals.lastSettled;
      if (signals.medianSettledAmount7d) clean.medianSettledAmount7d = signals.medianSettledAmount7d;
      return { listingId: id, payload: encodeOperation({ op: 'signals', id, signals: clean }) };
    });
    await this.stream.append(requests);
  }
}
