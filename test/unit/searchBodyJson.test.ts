import assert from 'node:assert/strict';
import { searchBodyJson } from '../../src/store/elasticsearch/listingSearch.js';

describe('unit: a search body\'s JSON with its query vectors serialized once', () => {
  const vector = Array.from({ length: 384 }, (_, i) => Math.sin(i) / 3);
  const body = (q: string, v: number[] = vector) => ({
    size: 21,
    query: { bool: { should: [{ match: { title: q } }, { knn: { field: 'embedding', query_vector: v, k: 100 } }], filter: [{ term: { type: 'http' } }] } },
    knn: { field: 'embedding', query_vector: [0.5, -0.25], k: 10 },
  });

  it('is exactly JSON.stringify of the body, read after read of the same vector and with another', () => {
    for (const b of [body('weather'), body('weather'), body('stocks', vector.map((x) => -x)), { size: 1, query: { match_all: {} } }]) {
      assert.equal(searchBodyJson(b), JSON.stringify(b));
    }
  });

  it('leaves the body as it was, and serializes vectors nested in arrays in their order', () => {
    const other = vector.map((x) => x / 2);
    const b = { query: { bool: { should: [{ knn: { field: 'embedding', query_vector: vector, k: 5 } }, [{ knn: { query_vector: other } }]] } }, knn: [{ query_vector: other }, { query_vector: vector }] };
    const before = JSON.stringify(b);
    assert.equal(searchBodyJson(b), before);
    assert.equal(JSON.stringify(b), before);
    assert.equal(b.knn[1]!.query_vector, vector);
  });

  it('a query that holds the stand-in, or its JSON, still gives exactly JSON.stringify\'s bytes', () => {
    for (const q of ['\u0000query_vector', 'a"\u0000query_vector', 'x\u0000query_vector"y', '"query_vector":"\\u0000query_vector"', '"query_vector":"\u0000query_vector"']) {
      const b = body(q);
      assert.equal(searchBodyJson(b), JSON.stringify(b));
      assert.deepEqual(JSON.parse(searchBodyJson(b)), b);
    }
  });
});
