/**
 * How a listing's vector is stored. Elasticsearch indexes `embedding` for kNN, but the mapping
 * leaves it out of `_source` (`_source.excludes`): as JSON it was 5.5 of a listing's 6.7 KB of
 * `_source`, decompressed and filtered by every hit that a search or a resources page fetches. The
 * stored copy is `embeddingPacked`, the float32s little-endian in base64 (a `binary` field: in
 * `_source` only, 2 KB, one string for the fetch phase to skip).
 *
 * Elasticsearch 8.19 rebuilds a document from its `_source` on every partial update and reindex,
 * and can neither rehydrate an excluded vector (9.2's `index.mapping.exclude_source_vectors`) nor
 * take one as base64: so every write that rebuilds a listing carries `embedding` again, unpacked
 * from the copy it read (listingStore.ts, listingEmbeddings.ts, scripts/lib/listingReindex.ts), or
 * the listing would drop out of semantic retrieval. An index made before the exclusion keeps the
 * JSON vector in `_source` as well; it is read when no packed copy is there.
 */
import { vectorDigits } from '../../core/vectorDigits.js';

export const VECTOR_FIELD = 'embedding';
export const PACKED_VECTOR_FIELD = 'embeddingPacked';
/** What a read that may have to carry the vector asks `_source` for. */
export const STORED_VECTOR_SOURCE = [PACKED_VECTOR_FIELD, VECTOR_FIELD];

/** A vector's two writes: the indexed components and the stored copy. */
export function storedVectorFields(vector: ArrayLike<number>): { embedding: number[]; embeddingPacked: string } {
  const packed = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) packed.writeFloatLE(vector[i]!, i * 4);
  return { embedding: vectorDigits(vector), embeddingPacked: packed.toString('base64') };
}

/** The components of a packed copy (nine digits: the float32s exactly); undefined when it is not one. */
export function unpackVector(packed: unknown): number[] | undefined {
  if (typeof packed !== 'string' || packed === '') return undefined;
  const bytes = Buffer.from(packed, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
  const vector = new Array<number>(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vectorDigits(vector);
}

/** The stored vector of a `_source`: its packed copy, else a JSON vector an older index kept there. */
export function storedVector(source: { embedding?: unknown; embeddingPacked?: unknown } | undefined): number[] | undefined {
  const packed = unpackVector(source?.embeddingPacked);
  if (packed) return packed;
  const vector = source?.embedding;
  return Array.isArray(vector) && vector.length > 0 && vector.every((x) => typeof x === 'number') ? vectorDigits(vector) : undefined;
}
