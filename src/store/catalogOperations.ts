/**
 * The entries of the durable write stream: what a producer asked for, already validated and
 * canonicalized, so the consumer only has to apply them.
 */
import type { Signals } from '../shapes/listing.js';
import type { ListingDocument, RemovalReason } from './listingDocument.js';

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
    }
  | { op: 'touch'; id: string; seenAt: string }
  | { op: 'remove'; id: string; reason: RemovalReason; at: string }
  | { op: 'signals'; id: string; signals: Signals };

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
  return JSON.stringify(operation);
}

const OPS = new Set(['upsert', 'touch', 'remove', 'signals']);

/** Parses a stream payload; `undefined` for an entry nobody can apply (dead-lettered at once). */
export function decodeOperation(payload: string): CatalogOperation | undefined {
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
 * per listing). The change feed and listing history (src/lifecycle) are built on it.
 */
export interface AppliedWritesObserver {
  applied(writes: AppliedWrite[]): Promise<void>;
}

export interface AppliedWrite {
  /** The write's stream entry id: grows with stream order, so a replayed write is recognisable. */
  entryId: string;
  operation: CatalogOperation;
}
