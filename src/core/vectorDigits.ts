/**
 * A vector as JSON carries it: each component at nine significant digits, which round-trip a
 * float32 exactly, so Elasticsearch indexes the very float32s the model gave. A float32 widened to
 * a double prints about 20 characters ("0.04054671342018084"); at nine digits it prints about 12
 * ("0.0405467134"). Query vectors go into every kNN request body, listing vectors into every
 * write that indexes one (lab journal 2026-11-26-evening-text-query-and-vectors.md); a listing's
 * stored copy is packed apart (store/elasticsearch/storedVector.ts).
 */
export function vectorDigits(vector: ArrayLike<number>): number[] {
  return Array.from(vector, (x) => Number(Math.fround(x).toPrecision(9)));
}
