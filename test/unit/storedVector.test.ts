import assert from 'node:assert/strict';
import { storedVector, storedVectorFields, unpackVector } from '../../src/store/elasticsearch/storedVector.js';
import { vectorDigits } from '../../src/core/vectorDigits.js';

describe('unit: the stored copy of a listing vector', () => {
  const vector = Array.from({ length: 384 }, (_, i) => Math.sin(i + 1) / 19.6);

  it('packs the float32s into 2 KB of base64 and unpacks the very components that are indexed', () => {
    const fields = storedVectorFields(vector);
    assert.equal(fields.embeddingPacked.length, Math.ceil((384 * 4) / 3) * 4);
    assert.deepEqual(fields.embedding, vectorDigits(vector));
    assert.deepEqual(unpackVector(fields.embeddingPacked), fields.embedding);
    assert.ok(JSON.stringify(fields.embeddingPacked).length < JSON.stringify(fields.embedding).length / 2);
  });

  it('reads the packed copy first, a JSON vector an older index kept in _source otherwise', () => {
    const packed = storedVectorFields(vector).embeddingPacked;
    const other = vector.map((x) => -x);
    assert.deepEqual(storedVector({ embeddingPacked: packed, embedding: other }), vectorDigits(vector));
    assert.deepEqual(storedVector({ embedding: other }), vectorDigits(other));
    assert.equal(storedVector({}), undefined);
    assert.equal(storedVector(undefined), undefined);
    assert.equal(storedVector({ embedding: null, embeddingPacked: null }), undefined);
  });

  it('refuses what is not a packed vector: an empty string, a length not of float32s, another type', () => {
    assert.equal(unpackVector(''), undefined);
    assert.equal(unpackVector('AAAAAAA='), undefined, 'five bytes');
    assert.equal(unpackVector(42), undefined);
    assert.equal(storedVector({ embedding: [0.1, 'x'] }), undefined);
    assert.equal(storedVector({ embedding: [] }), undefined);
  });
});
