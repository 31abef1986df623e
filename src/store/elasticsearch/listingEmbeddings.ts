/**
 * The embedding worker's side of the listing index (src/semantic/embeddingWorker.ts): finds live
 * listings that have no embedding of their current text by the running model, and writes vectors
 * back with a conditional partial update.
 *
 * "Needs embedding" is "has no `embeddedTextHash`, or an `embeddingModel` other than the worker's":
 * an upsert that changes the text drops the stored vector and its hash (store/elasticsearch/listingStore.ts
 * keeps them only while the text hash matches), so a stale vector is a missing one, and a vector of
 * another model (the deployment switched EMBEDDING_MODEL) is re-computed; neither needs a
 * per-document script. A vector of a text the recipe no longer produces (a retired text hash) is
 * stale too, though nothing rewrote the listing.
 */
import type { Client } from '@elastic/elasticsearch';
import type { ListingDocument } from '../listingDocument.js';
import { NOT_REMOVED } from './listingQueries.js';
import { isElasticsearchUnavailable } from './client.js';
import { STORED_VECTOR_SOURCE, VECTOR_FIELD, storedVector, storedVectorFields } from './storedVector.js';

/** The fields a listing's embedded text is built from (semantic/listingText.ts). */
export type EmbeddedFields = Pick<ListingDocument, 'resource' | 'name' | 'description' | 'tags' | 'describe'>;
/** The source fields listingText reads (semantic/listingText.ts). */
export const EMBEDDED_TEXT_FIELDS = ['resource', 'name', 'description', 'tags', 'describe.title', 'describe.description', 'describe.tags'];

export interface PendingEmbedding {
  id: string;
  doc: EmbeddedFields;
  /** It has a vector of its current text that names no model (stored before vectors did). */
  unnamed: boolean;
  /** That vector, which naming its model carries again (a partial update rebuilds from `_source`: storedVector.ts). */
  unnamedVector?: number[];
  /** The version the text was read at: the vector is written only onto that version. */
  seqNo: number;
  primaryTerm: number;
}

export interface EmbeddingWrite {
  id: string;
  seqNo: number;
  primaryTerm: number;
  embedding: number[];
  textHash: string;
  /** The model that computed `embedding`. */
  model: string;
}

/** A listing embedded by `model` (its text hash is there only while the vector is of its current text). */
function embeddedBy(model: string): object {
  return { bool: { filter: [{ exists: { field: 'embeddedTextHash' } }, { term: { embeddingModel: model } }] } };
}

/** written; conflict: the listing changed since it was read (picked again next round); gone: deleted meanwhile. */
export type EmbeddingWriteOutcome = 'written' | 'conflict' | 'gone' | 'failed';

export class ListingEmbeddingStore {
  constructor(private readonly client: Client, private readonly alias: string) {}

  /**
   * Up to `size` live listings without an embedding of their text by `model`. The search sees writes only
   * after the next refresh, so `handled` (listing id -> the version a worker last embedded or saw)
   * leaves out hits at or below that version: just embedded, not yet visible. A listing changed
   * since (a higher version) is offered again at once. A real-time mget then reads the current
   * text and version of the candidates, so a vector is computed from what is stored now and a
   * listing another worker embedded meanwhile is left out. `seen`: every candidate with its
   * current version.
   */
  async pending(
    size: number,
    model: string,
    handled: ReadonlyMap<string, number> = new Map(),
    /** Text hashes whose vectors are stale whatever model made them (semantic/listingText.ts RETIRED_TEXT_HASHES). */
    retired: readonly string[] = [],
  ): Promise<{ seen: Array<{ id: string; seqNo: number }>; listings: PendingEmbedding[] }> {
    const stale = retired.length > 0 ? [{ terms: { embeddedTextHash: [...retired] } }] : [];
    const response = await this.client.search<never>({
      index: this.alias,
      // Room for the handled hits it skips (max_result_window is 10,000).
      size: Math.min(size + handled.size, 10_000),
      track_total_hits: false,
      _source: false,
      seq_no_primary_term: true,
      query: { bool: { must_not: [NOT_REMOVED], should: [{ bool: { must_not: [embeddedBy(model)] } }, ...stale], minimum_should_match: 1 } },
      // Index order: nothing to score, and the index sort (firstSeen desc) puts new listings first.
      sort: ['_doc'],
    });
    const ids = response.hits.hits
      .filter((hit) => typeof hit._id === 'string' && !((hit._seq_no ?? -1) <= (handled.get(hit._id) ?? -1)))
      .slice(0, size)
      .map((hit) => hit._id!);
    if (ids.length === 0) return { seen: [], listings: [] };
    const current = await this.client.mget<Partial<ListingDocument>>({
      index: this.alias,
      ids,
      _source_includes: [...EMBEDDED_TEXT_FIELDS, 'embeddedTextHash', 'embeddingModel', 'removed', ...STORED_VECTOR_SOURCE],
    });
    const seen: Array<{ id: string; seqNo: number }> = [];
    const listings: PendingEmbedding[] = [];
    for (const doc of current.docs) {
      if (!('found' in doc) || !doc.found || doc._seq_no === undefined || doc._primary_term === undefined) continue;
      seen.push({ id: doc._id, seqNo: doc._seq_no });
      const source = doc._source ?? {};
      const hash = typeof source.embeddedTextHash === 'string' && !retired.includes(source.embeddedTextHash) ? source.embeddedTextHash : undefined;
      if (source.removed === true || (hash !== undefined && source.embeddingModel === model)) continue;
      const unnamedVector = hash !== undefined && source.embeddingModel === undefined ? storedVector(source) : undefined;
      const { embedding: _vector, embeddingPacked: _packed, ...text } = source;
      listings.push({
        id: doc._id,
        doc: text as EmbeddedFields,
        unnamed: unnamedVector !== undefined,
        ...(unnamedVector ? { unnamedVector } : {}),
        seqNo: doc._seq_no,
        primaryTerm: doc._primary_term,
      });
    }
    return { seen, listings };
  }

  /**
   * Writes each vector onto the version its text was read from (`if_seq_no`/`if_primary_term`): a
   * listing changed meanwhile (new text, a signals flush, another gateway's worker that embedded it
   * first) conflicts instead of getting a vector of an older text. One outcome per write, in order.
   */
  async write(writes: EmbeddingWrite[]): Promise<EmbeddingWriteOutcome[]> {
    return this.update(writes.map((w) => [w, { ...storedVectorFields(w.embedding), embeddedTextHash: w.textHash, embeddingModel: w.model }]));
  }

  /**
   * Whether any listing carries a vector not named `model` (another model's, or one stored before
   * vectors named theirs): one count that stops at the first such listing.
   */
  async otherModelsStored(model: string): Promise<boolean> {
    const { count } = await this.client.count({
      index: this.alias,
      terminate_after: 1,
      query: { bool: { filter: [{ exists: { field: VECTOR_FIELD } }], must_not: [{ term: { embeddingModel: model } }] } },
    });
    return count > 0;
  }

  /** Names the model of vectors stored without one (PendingEmbedding.unnamed), on the version read, like write. */
  async name(listings: Array<Pick<PendingEmbedding, 'id' | 'seqNo' | 'primaryTerm' | 'unnamedVector'>>, model: string): Promise<EmbeddingWriteOutcome[]> {
    return this.update(listings.map((l) => [l, { embeddingModel: model, ...(l.unnamedVector ? storedVectorFields(l.unnamedVector) : {}) }]));
  }

  private async update(updates: Array<[{ id: string; seqNo: number; primaryTerm: number }, object]>): Promise<EmbeddingWriteOutcome[]> {
    if (updates.length === 0) return [];
    try {
      const response = await this.client.bulk({
        index: this.alias,
        require_alias: true,
        refresh: false,
        operations: updates.flatMap(([w, doc]) => [{ update: { _id: w.id, if_seq_no: w.seqNo, if_primary_term: w.primaryTerm } }, { doc }]),
      });
      return updates.map((_, i) => outcomeOf(response.items[i]?.update));
    } catch (err) {
      if (isElasticsearchUnavailable(err)) return updates.map(() => 'failed');
      throw err;
    }
  }
}

function outcomeOf(item: { status: number; error?: { type?: string } } | undefined): EmbeddingWriteOutcome {
  if (!item) return 'failed';
  if (!item.error) return 'written';
  if (item.error.type === 'version_conflict_engine_exception') return 'conflict';
  if (item.error.type === 'document_missing_exception') return 'gone';
  return 'failed';
}
