/**
 * A vector as JSON carries it: each component at nine significant digits, which round-trip a
 * float32 exactly, so Elasticsearch indexes the very float32s the model gave. A float32 widened to
 * a double prints about 20 characters ("0.04054671342018084"); at nine digits it prints about 12
 * ("0.0405467134"). Listing vectors live in `_source`, where they were most of each document
 * (8.4 of 9.6 KB): every hit a search returns has its `_source` read and filtered in the fetch
 * phase, so their length is paid on every search, besides disk and indexing (lab journal
 * 2026-11-26-evening-text-query-and-vectors.md). Query vectors go into every kNN request body.
 */
export function vectorDigits(vector: ArrayLike<number>): number[] {
  return Array.from(vector, (x) => Number(Math.fround(x).toPrecision(9)));
}
