/**
 * Elasticsearch side of the catalog write path: applies a batch of write operations with one
 * `_bulk`, and reads documents by id. Everything goes through the alias with `require_alias`, so a
 * missing alias never auto-creates an index with a guessed mapping.
 */
import type { Client } from '@elastic/elasticsearch';
import { errors } from '@elastic/elasticsearch';
import type { ListingDocument } from '../catalog/listing.js';
import type { ApplyOutcome, CatalogOperation } from '../catalog/operations.js';
import { isElasticsearchUnavailable } from './elasticsearch.js';

/**
 * Fields of a listing's content that a partial update would otherwise merge into the stored value
 * (objects merge key by key, absent fields stay): they are cleared first, then set, so a seller who
 * drops `payTo` or an input really drops it.
 */
const CONTENT_FIELDS = [
  'method',
  'name',
  'description',
  'tags',
  'keywords',
  'inputSchema',
  'outputSchema',
  'payment',
  'accepts',
  'describe',
  'removedReason',
  'removedAt',
] as const;

type BulkLine = Record<string, unknown>;

function upsertLines(operation: Extract<CatalogOperation, { op: 'upsert' }>): BulkLine[] {
  const { doc, id, replaceSignals } = operation;
  const reset: Record<string, null> = {};
  for (const field of CONTENT_FIELDS) reset[field] = null;
  if (replaceSignals) reset.signals = null;
  const { firstSeen: _firstSeen, signals, ...content } = doc;
  const update: Record<string, unknown> = { ...content };
  if (replaceSignals) update.signals = { lastSettled: null, ...signals };
  return [
    // New listing: the whole document (firstSeen = now). Existing: clear the replaceable content.
    { update: { _id: id } },
    { doc: reset, upsert: doc },
    { update: { _id: id } },
    { doc: update, detect_noop: true },
  ];
}

function operationLines(operation: CatalogOperation): BulkLine[] {
  switch (operation.op) {
    case 'upsert':
      return upsertLines(operation);
    case 'touch':
      return [{ update: { _id: operation.id } }, { doc: { lastSeen: operation.seenAt } }];
    case 'remove':
      return [
        { update: { _id: operation.id } },
        { doc: { removed: true, removedReason: operation.reason, removedAt: operation.at, updatedAt: operation.at } },
      ];
    case 'signals':
      return [{ update: { _id: operation.id } }, { doc: { signals: { lastSettled: null, ...operation.signals } } }];
  }
}

interface BulkItemResult {
  status: number;
  error?: { type?: string; reason?: string };
}

const TRANSIENT_ITEM_ERRORS = new Set(['es_rejected_execution_exception', 'index_not_found_exception', 'unavailable_shards_exception']);

function itemOutcome(operation: CatalogOperation, item: BulkItemResult | undefined): ApplyOutcome {
  if (!item) return { status: 'failed', reason: 'no result from Elasticsearch for this operation' };
  if (!item.error) return { status: 'applied' };
  const reason = `${item.error.type ?? 'error'}: ${item.error.reason ?? `status ${item.status}`}`;
  if (item.error.type === 'document_missing_exception' && operation.op !== 'upsert') return { status: 'dropped', reason: 'listing does not exist' };
  if (item.status === 429 || item.status === 503 || TRANSIENT_ITEM_ERRORS.has(item.error.type ?? '')) return { status: 'retry', reason };
  return { status: 'failed', reason };
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

export class ListingStore {
  constructor(private readonly client: Client, private readonly alias: string) {}

  /** Applies operations in order with one `_bulk`; one outcome per operation. */
  async apply(operations: CatalogOperation[]): Promise<ApplyOutcome[]> {
    if (operations.length === 0) return [];
    const lines: BulkLine[] = [];
    const spans: number[] = [];
    for (const operation of operations) {
      const opLines = operationLines(operation);
      spans.push(opLines.length / 2);
      lines.push(...opLines);
    }
    let items: Array<Record<string, BulkItemResult>>;
    try {
      const response = await this.client.bulk({ index: this.alias, require_alias: true, operations: lines, refresh: false });
      items = response.items as unknown as Array<Record<string, BulkItemResult>>;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (isElasticsearchUnavailable(err)) return operations.map(() => ({ status: 'retry', reason }));
      return operations.map(() => ({ status: 'failed', reason: `bulk request rejected: ${reason}` }));
    }
    const outcomes: ApplyOutcome[] = [];
    let at = 0;
    operations.forEach((operation, i) => {
      let outcome: ApplyOutcome = { status: 'applied' };
      for (let k = 0; k < (spans[i] ?? 0); k++) {
        const item = items[at++];
        const result = itemOutcome(operation, item ? Object.values(item)[0] : undefined);
        // The first problem of an operation's actions decides its outcome.
        if (outcome.status === 'applied') outcome = result;
      }
      outcomes.push(outcome);
    });
    return outcomes;
  }

  /** The stored document (removed ones included), read in real time (no refresh needed). */
  async get(id: string): Promise<ListingDocument | undefined> {
    try {
      const response = await this.client.get<ListingDocument>({ index: this.alias, id });
      return response.found && response._source ? withoutNulls(response._source) : undefined;
    } catch (err) {
      if (err instanceof errors.ResponseError && err.meta.statusCode === 404) return undefined;
      throw err;
    }
  }

  async getMany(ids: string[]): Promise<Map<string, ListingDocument>> {
    const found = new Map<string, ListingDocument>();
    if (ids.length === 0) return found;
    const response = await this.client.mget<ListingDocument>({ index: this.alias, ids });
    for (const doc of response.docs) {
      if ('found' in doc && doc.found && doc._source) found.set(doc._id, withoutNulls(doc._source));
    }
    return found;
  }
}
