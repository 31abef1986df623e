/**
 * Elasticsearch side of the catalog write path: applies a batch of write operations with one
 * `_bulk`, and reads documents by id. Everything goes through the alias with `require_alias`, so a
 * missing alias never auto-creates an index with a guessed mapping.
 */
import type { Client } from '@elastic/elasticsearch';
import { errors } from '@elastic/elasticsearch';
import { keptFromStored, trafficMayRewrite, type ListingDocument } from '../listingDocument.js';
import { isConflictRetry, supersededOperations, type ApplyOutcome, type CatalogOperation } from '../catalogOperations.js';
import { isElasticsearchUnavailable } from './client.js';
import { PACKED_VECTOR_FIELD, VECTOR_FIELD, storedVectorFields } from './storedVector.js';
import { readCarriedVectors, readStoredState, rebuildsFromSource, withoutNulls, type CarriedVector, type StoredState } from './listingWriteState.js';

/** An action or a document; a string is a document's JSON, sent as is. */
type BulkLine = Record<string, unknown> | string;

/** Stored for search only (the listing's vector, its text hash and model): by-id reads and exports never need them. */
export const NOT_READ = [VECTOR_FIELD, PACKED_VECTOR_FIELD, 'embeddedTextHash', 'embeddingModel'];

/** The optional members of `signals`, cleared by a flush that does not carry them. */
const CLEARED_SIGNALS = {
  lastSettled: null,
  medianSettledAmount7d: null,
  health: null,
  uniquePayers7d: null,
  largestPayerShare7d: null,
  settleCount30d: null,
  uniquePayers30d: null,
};

/**
 * A new listing is `create`d; an existing one is re-indexed whole (so fields a seller dropped are
 * really gone) keeping firstSeen, owner and, unless the write carries them, signals. The
 * `if_seq_no` guard turns a concurrent change (a signals flush, another consumer) into a conflict
 * that is retried with fresh state instead of being overwritten.
 */
function upsertLines(operation: Extract<CatalogOperation, { op: 'upsert' }>, stored: StoredState | undefined, carried: CarriedVector | undefined): BulkLine[] {
  const { doc, id, replaceSignals } = operation;
  if (!stored) return [{ create: { _id: id } }, operation.encodedDoc ?? (doc as unknown as BulkLine)];
  const merged = keptFromStored(doc, stored, replaceSignals);
  // The text the vector represents is unchanged: keep it, or the listing would drop out of
  // semantic retrieval until the embedding worker computed the same vector again. Its model goes
  // with it: a vector of another model than the worker's is still re-computed (listingEmbeddings.ts).
  if (carried?.vector && stored.embeddedTextHash !== undefined && stored.embeddedTextHash === operation.textHash) {
    Object.assign(merged, storedVectorFields(carried.vector));
    merged.embeddedTextHash = stored.embeddedTextHash;
    if (carried.model !== undefined) merged.embeddingModel = carried.model;
  }
  return [{ index: { _id: id, if_seq_no: stored.seqNo, if_primary_term: stored.primaryTerm } }, merged as unknown as BulkLine];
}

/**
 * A partial update of the version read (`if_seq_no`), carrying the listing's vector again: it
 * is not in `_source`, which Elasticsearch rebuilds the document from (storedVector.ts). A
 * listing changed meanwhile conflicts, and the write is retried with fresh state. One not found
 * is updated as it is: Elasticsearch answers that it does not exist.
 */
function partialLines(id: string, doc: Record<string, unknown>, carried: CarriedVector | undefined): BulkLine[] {
  if (!carried) return [{ update: { _id: id } }, { doc }];
  const guard = { if_seq_no: carried.seqNo, if_primary_term: carried.primaryTerm };
  return [{ update: { _id: id, ...guard } }, { doc: carried.vector ? { ...doc, embedding: carried.vector } : doc }];
}

/**
 * A traffic upsert of a listing traffic does not own (declared by a seller or an import, or removed
 * for a reason other than staleness) only marks it seen. Decided here, on the state read once every
 * earlier write to the listing in this consumer's stream order is applied, because the settlement
 * that queued the upsert read the catalog before earlier writes (an import, a publish, a removal)
 * landed (docs/facilitator.md "Evidence before listing").
 */
function yieldedTouch(operation: CatalogOperation, stored: StoredState | undefined): Extract<CatalogOperation, { op: 'touch' }> | undefined {
  if (operation.op !== 'upsert' || operation.doc.source !== 'traffic' || !stored || trafficMayRewrite(stored)) return undefined;
  return { op: 'touch', id: operation.id, seenAt: operation.doc.lastSeen };
}

function operationLines(operation: CatalogOperation, stored: Map<string, StoredState>, carried: Map<string, CarriedVector>): BulkLine[] {
  const vector = carried.get(operation.id);
  switch (operation.op) {
    case 'upsert':
      return upsertLines(operation, stored.get(operation.id), vector);
    case 'touch':
      return partialLines(operation.id, { lastSeen: operation.seenAt }, vector);
    case 'remove':
      return [
        { update: { _id: operation.id } },
        // A removed listing leaves the vector index too: the kNN clause then needs no "not removed"
        // filter, which cost a pass over every document per search (lab journal
        // 2026-11-26-search-cost-issue-22.md).
        // Listed again, it is embedded again by the embedding worker.
        {
          doc: {
            removed: true,
            removedReason: operation.reason,
            removedAt: operation.at,
            updatedAt: operation.at,
            [VECTOR_FIELD]: null,
            [PACKED_VECTOR_FIELD]: null,
            embeddedTextHash: null,
            embeddingModel: null,
          },
        },
      ];
    case 'signals':
      // A partial document, no script (Elasticsearch may run without its scripting module): the nulls
      // clear what the new signals lack; `provenance.settled` merges beside the other evidence.
      return partialLines(operation.id, { signals: { ...CLEARED_SIGNALS, ...operation.signals }, ...(operation.settled ? { provenance: { settled: operation.settled } } : {}) }, vector);
    case 'evidence':
      return partialLines(operation.id, { provenance: operation.provenance }, vector);
  }
}

/**
 * Only what itemOutcome reads from a `_bulk` response (every item keeps its status, so items stay
 * one per operation, in order): a tenth of the response to serialize, send and parse.
 */
const BULK_RESULT = ['errors', 'items.*.status', 'items.*.error.type', 'items.*.error.reason'];

interface BulkItemResult {
  status: number;
  error?: { type?: string; reason?: string };
}

const TRANSIENT_ITEM_ERRORS = new Set([
  'es_rejected_execution_exception',
  'index_not_found_exception',
  'unavailable_shards_exception',
  // Changed since it was read (or created meanwhile): applied again with fresh state.
  'version_conflict_engine_exception',
  // The index takes no writes for now: the write block `npm run reindex` sets on the old index
  // while it switches the alias (the retry goes to the new one), a read-only index after a full
  // disk, a closed index (a BM25 change). The write waits in the stream, it is not a rejection.
  'cluster_block_exception',
  'index_closed_exception',
]);

function itemOutcome(operation: CatalogOperation, item: BulkItemResult | undefined): ApplyOutcome {
  if (!item) return { status: 'failed', reason: 'no result from Elasticsearch for this operation' };
  if (!item.error) return { status: 'applied' };
  const reason = `${item.error.type ?? 'error'}: ${item.error.reason ?? `status ${item.status}`}`;
  if (item.error.type === 'document_missing_exception' && operation.op !== 'upsert') return { status: 'dropped', reason: 'listing does not exist' };
  if (item.status === 429 || item.status === 503 || TRANSIENT_ITEM_ERRORS.has(item.error.type ?? '')) return { status: 'retry', reason };
  return { status: 'failed', reason };
}

/**
 * Largest `_bulk` body sent at once, roughly: a batch of large listings (up to 64 KiB each,
 * docs/catalog-write.md) would otherwise be one request of up to CATALOG_BATCH_SIZE x 64 KiB,
 * past Elasticsearch's http.max_content_length (100 MB) and heavy on a small heap.
 */
const MAX_BULK_BYTES = 8 * 1024 * 1024;

function approximateBytes(operation: CatalogOperation): number {
  // A partial update carries the listing's vector (384 numbers as JSON: listingWriteState.ts).
  if (rebuildsFromSource(operation)) return 5 * 1024;
  if (operation.op !== 'upsert') return 256;
  return operation.encodedLength ?? JSON.stringify(operation.doc).length;
}

function isConflict(outcome: ApplyOutcome): boolean {
  return outcome.status === 'retry' && isConflictRetry(outcome.reason);
}

function isMissingIndex(err: unknown): boolean {
  return err instanceof errors.ResponseError && (err.body as { error?: { type?: string } })?.error?.type === 'index_not_found_exception';
}

export class ListingStore {
  constructor(private readonly client: Client, private readonly alias: string) {}

  /**
   * Applies operations in order; one outcome per operation. A batch is cut into runs in which no
   * listing appears twice, each run being at most two mgets (listingWriteState.ts) and one `_bulk`. Once an operation
   * on a listing is not applied (retry, or failed), every later operation on that listing in the
   * batch is `retry` without being sent: applying it now would put it ahead of the earlier one,
   * which is replayed later (e.g. an upsert coming back over a later remove). An operation the
   * next one on its listing contains entirely is not sent (`dropped`: supersededOperations).
   */
  async apply(operations: CatalogOperation[]): Promise<ApplyOutcome[]> {
    const outcomes: ApplyOutcome[] = new Array<ApplyOutcome>(operations.length);
    for (const i of supersededOperations(operations)) outcomes[i] = { status: 'dropped', reason: 'superseded by a later write to the listing in the same batch' };
    /** Listings with an operation not applied in this batch, with the reason. */
    const held = new Map<string, string>();
    let start = 0;
    while (start < operations.length) {
      const ids = new Set<string>();
      const run: number[] = [];
      let bytes = 0;
      let end = start;
      for (; end < operations.length; end++) {
        if (outcomes[end]) continue;
        const { id } = operations[end]!;
        const earlier = held.get(id);
        if (earlier !== undefined) {
          outcomes[end] = { status: 'retry', reason: `an earlier write to this listing is not applied yet (${earlier})` };
          continue;
        }
        if (ids.has(id)) break;
        bytes += approximateBytes(operations[end]!);
        if (run.length > 0 && bytes > MAX_BULK_BYTES) break;
        ids.add(id);
        run.push(end);
      }
      const results = run.length > 0 ? await this.applyRun(run.map((i) => operations[i]!)) : [];
      run.forEach((at, k) => {
        const outcome = results[k] ?? { status: 'failed', reason: 'no outcome' };
        outcomes[at] = outcome;
        if (outcome.status === 'retry' || outcome.status === 'failed') held.set(operations[at]!.id, outcome.reason);
      });
      start = end;
    }
    return outcomes;
  }

  private async applyRun(operations: CatalogOperation[]): Promise<ApplyOutcome[]> {
    let items: Array<Record<string, BulkItemResult>>;
    /** What is applied: each operation, or the touch a traffic upsert yields to (it moves lastSeen only). */
    let applied: CatalogOperation[];
    try {
      const toRead = operations.filter((o) => o.op === 'upsert' && !o.probablyNew).map((o) => o.id);
      const stored = await readStoredState(this.client, this.alias, toRead);
      applied = operations.map((operation) => yieldedTouch(operation, stored.get(operation.id)) ?? operation);
      // After the yield: a traffic upsert turned into a touch carries the vector like any touch.
      const carried = await readCarriedVectors(this.client, this.alias, applied, stored);
      const lines = applied.flatMap((operation) => operationLines(operation, stored, carried));
      const response = await this.client.bulk({ index: this.alias, require_alias: true, operations: lines, refresh: false, filter_path: BULK_RESULT });
      items = (response.items ?? []) as unknown as Array<Record<string, BulkItemResult>>;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (isElasticsearchUnavailable(err) || isMissingIndex(err)) return operations.map(() => ({ status: 'retry', reason }));
      return operations.map(() => ({ status: 'failed', reason: `bulk request rejected: ${reason}` }));
    }
    const outcomes = applied.map((operation, i): ApplyOutcome => {
      const outcome = itemOutcome(operation, items[i] ? Object.values(items[i]!)[0] : undefined);
      return outcome.status === 'applied' && operation !== operations[i] ? { status: 'applied', as: operation } : outcome;
    });
    // Created blindly but already there (e.g. a removed listing): apply again, reading it first.
    const again = operations.flatMap((operation, i) =>
      operation.op === 'upsert' && operation.probablyNew && isConflict(outcomes[i]!) ? [i] : [],
    );
    if (again.length > 0) {
      const second = await this.applyRun(again.map((i) => ({ ...operations[i]!, probablyNew: false }) as CatalogOperation));
      again.forEach((at, k) => (outcomes[at] = second[k]!));
    }
    return outcomes;
  }

  /** The stored document (removed ones included), read in real time (no refresh needed). */
  async get(id: string): Promise<ListingDocument | undefined> {
    try {
      const response = await this.client.get<ListingDocument>({ index: this.alias, id, _source_excludes: NOT_READ });
      return response.found && response._source ? withoutNulls(response._source) : undefined;
    } catch (err) {
      // 404 for a listing that does not exist; a missing index is an outage (503), not "no such listing".
      if (err instanceof errors.ResponseError && err.meta.statusCode === 404 && !isMissingIndex(err)) return undefined;
      throw err;
    }
  }

  async getMany(ids: string[]): Promise<Map<string, ListingDocument>> {
    const found = new Map<string, ListingDocument>();
    if (ids.length === 0) return found;
    const response = await this.client.mget<ListingDocument>({ index: this.alias, ids, _source_excludes: NOT_READ });
    for (const doc of response.docs) {
      if ('found' in doc && doc.found && doc._source) found.set(doc._id, withoutNulls(doc._source));
    }
    return found;
  }
}
