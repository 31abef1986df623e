/**
 * The entries of the durable write stream: what a producer asked for, already validated and
 * canonicalized, so the consumer only has to apply them.
 */
import type { Provenance, Signals } from '../shapes/listing.js';
import type { ListingDocument, RemovalReason } from './listingDocument.js';

/** provenance.settled as the signals flush writes it: times, and on a chain the transactions (issue 44). */
export interface SettledProvenance {
  first: string;
  last: string;
  firstTransaction?: string;
  lastTransaction?: string;
}

export type CatalogOperation =
  | {
      op: 'upsert';
      id: string;
      /** The document as stored when the listing is new; firstSeen (and signals) survive otherwise. */
      doc: ListingDocument;
      /** True when the input carried signals (an import): they replace the stored ones. */
      replaceSignals: boolean;
      /**
       * Set by the consumer (never stored in the stream payload) when the id was not live at queue
       * time: the listing is created without reading it first; if it exists after all (a removed
       * listing) the create conflicts and the write is applied the careful way.
       */
      probablyNew?: boolean;
      /**
       * Set by the consumer (never stored in the stream payload): the hash of the text the
       * listing's embedding represents. An existing listing whose stored embedding was computed
       * from the same text keeps it; otherwise the upsert stores none and the embedding worker
       * computes a new one (src/semantic/embeddingWorker.ts).
       */
      textHash?: string;
      /**
       * Set by the consumer (never stored in the stream payload): the length of the entry's JSON,
       * which sizes the `_bulk` request without serializing the document a second time.
       */
      encodedLength?: number;
      /**
       * Set by the consumer (never stored in the stream payload): the document's JSON exactly as
       * the stream entry carries it, sent to `_bulk` as is when the listing is created, instead of
       * serializing the parsed document again.
       */
      encodedDoc?: string;
    }
  | { op: 'touch'; id: string; seenAt: string }
  | { op: 'remove'; id: string; reason: RemovalReason; at: string }
  /** `settled`: the first and last settlement, written to `provenance.settled` with the signals. */
  | { op: 'signals'; id: string; signals: Signals; settled?: SettledProvenance }
  /** Evidence about a listing that changes nothing else (a failed probe that keeps it): merged into `provenance`. */
  | { op: 'evidence'; id: string; provenance: Provenance };

/** How applying one operation went. */
export type ApplyOutcome =
  /**
   * `as`: what the store applied when it is not the operation asked for (a traffic upsert of a
   * listing traffic does not own is applied as a touch): observers are told what really happened.
   */
  | { status: 'applied'; as?: CatalogOperation }
  /** touch/remove/signals on a listing that does not exist: nothing to do, not an error. */
  | { status: 'dropped'; reason: string }
  /** Elasticsearch unavailable or overloaded: retried after a backoff, not counted as a failure. */
  | { status: 'retry'; reason: string }
  /** Rejected: counted, dead-lettered after the configured number of attempts. */
  | { status: 'failed'; reason: string };

export function encodeOperation(operation: CatalogOperation): string {
  if (operation.op !== 'upsert') return JSON.stringify(operation);
  // Members in this order, and never the consumer's own (decodeEncodedUpsert reads this form).
  const { id, doc, replaceSignals } = operation;
  return JSON.stringify({ op: 'upsert', id, doc, replaceSignals });
}

const OPS = new Set(['upsert', 'touch', 'remove', 'signals', 'evidence']);

/** How encodeOperation writes an upsert: `{"op":"upsert","id":ID,"doc":DOC,"replaceSignals":BOOL}`. */
const UPSERT_START = '{"op":"upsert","id":';
const DOC_MEMBER = ',"doc":';
const REPLACE_SIGNALS = [',"replaceSignals":false}', ',"replaceSignals":true}'] as const;

/**
 * An upsert as encodeOperation wrote it, parsed member by member so the document's JSON text is
 * kept (the consumer sends it to `_bulk` as is). Undefined for any other payload, which the
 * general parse handles. A quote cannot appear unescaped inside a JSON string, so the first
 * `,"doc":` after a string id ends the id; the document text must parse as one JSON object
 * (JSON.parse refuses anything after it), so the payload is exactly those four members and parsing
 * it whole would give the same operation.
 */
function decodeEncodedUpsert(payload: string): CatalogOperation | undefined {
  if (!payload.startsWith(UPSERT_START)) return undefined;
  const idEnd = payload.indexOf(DOC_MEMBER, UPSERT_START.length);
  const replaceSignals = payload.endsWith(REPLACE_SIGNALS[1]);
  const tail = REPLACE_SIGNALS[replaceSignals ? 1 : 0];
  if (idEnd < 0 || !payload.endsWith(tail)) return undefined;
  const id: unknown = JSON.parse(payload.slice(UPSERT_START.length, idEnd));
  const docStart = idEnd + DOC_MEMBER.length;
  const docEnd = payload.length - tail.length;
  if (typeof id !== 'string' || docEnd <= docStart || payload[docStart] !== '{') return undefined;
  const encodedDoc = payload.slice(docStart, docEnd);
  const doc: unknown = JSON.parse(encodedDoc);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  return { op: 'upsert', id, doc: doc as ListingDocument, replaceSignals, encodedDoc };
}

/** Parses a stream payload; `undefined` for an entry nobody can apply (dead-lettered at once). */
export function decodeOperation(payload: string): CatalogOperation | undefined {
  try {
    const upsert = decodeEncodedUpsert(payload);
    if (upsert) return upsert;
  } catch {
    // Not an upsert as encodeOperation writes it: parsed whole below.
  }
  try {
    const value = JSON.parse(payload) as Partial<CatalogOperation>;
    if (!value || typeof value !== 'object' || typeof value.id !== 'string' || !OPS.has(String(value.op))) return undefined;
    return value as CatalogOperation;
  } catch {
    return undefined;
  }
}

/**
 * Told about the writes Elasticsearch accepted, before their stream entries are acknowledged (so a
 * crash in between replays them: observers see every applied write at least once, in stream order
 * per listing). The change feed and listing history (src/changes) are built on it.
 */
export interface AppliedWritesObserver {
  applied(writes: AppliedWrite[]): Promise<void>;
}

export interface AppliedWrite {
  /** The write's stream entry id: grows with stream order, so a replayed write is recognisable. */
  entryId: string;
  operation: CatalogOperation;
}

/** A traffic sighting's upsert of a listing the id was live for: it rewrites what traffic may, and moves lastSeen. */
function isTrafficRefresh(operation: CatalogOperation): boolean {
  return operation.op === 'upsert' && operation.doc.source === 'traffic' && !operation.replaceSignals && operation.probablyNew !== true;
}

/** Whether applying `later` right after `earlier` (same listing) leaves what applying `later` alone does. */
function contains(later: CatalogOperation, earlier: CatalogOperation): boolean {
  switch (earlier.op) {
    // lastSeen only: a later touch or traffic upsert sets it again.
    case 'touch':
      return later.op === 'touch' || isTrafficRefresh(later);
    // The whole signals block is replaced; provenance.settled only when the later one carries it too.
    case 'signals':
      return later.op === 'signals' && (later.settled !== undefined || earlier.settled === undefined);
    // Traffic refreshes of an existing listing: the later one carries the newer sighting and the
    // accepts merged so far (store/redis/trafficAccepts.ts), and both keep the stored firstSeen,
    // signals and owner (or both yield to a touch of a declared listing).
    case 'upsert':
      return isTrafficRefresh(earlier) && isTrafficRefresh(later);
    default:
      return false;
  }
}

/**
 * The operations of a batch that the next operation on the same listing in the batch contains
 * entirely (a touch, signals or traffic refresh followed by another): applying only the later one
 * leaves the same document. A listing paid for many times a second gets one write per settlement;
 * applied one by one, each is a read and a `_bulk` in turn, and every other write behind them
 * waits (test:cluster: a stream that took minutes to drain). Declared writes (publish, announce,
 * import), removals and evidence are never skipped.
 */
export function supersededOperations(operations: readonly CatalogOperation[]): Set<number> {
  const superseded = new Set<number>();
  const latest = new Map<string, number>();
  operations.forEach((operation, i) => {
    const previous = latest.get(operation.id);
    if (previous !== undefined && contains(operation, operations[previous]!)) superseded.add(previous);
    latest.set(operation.id, i);
  });
  return superseded;
}

/** A retry because another writer changed the listing first (not Elasticsearch being unavailable): retry at once, with fresh state. */
export function isConflictRetry(reason: string): boolean {
  return reason.includes('version_conflict_engine_exception');
}
