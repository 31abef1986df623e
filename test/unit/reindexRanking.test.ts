import assert from 'node:assert/strict';
import { carriedRanking } from '../../scripts/lib/listingReindex.js';
import { loadIndexDefinition } from '../../src/store/elasticsearch/listingIndex.js';

describe('unit: ranking tunables carried by npm run reindex', () => {
  const definition = loadIndexDefinition().mappings;
  const shipped = (definition._meta as { ranking: { fields: Record<string, number> } }).ranking;

  it("keeps the operator's tunables when every boosted field exists in the new mapping", () => {
    const live = { ...shipped, fields: { phrase_text: 2, 'keywords.stemmed': 1 }, window: 50 };
    assert.deepEqual(carriedRanking(live, definition), live);
  });

  it('drops boosts of fields the new mapping no longer has, keeping the rest', () => {
    const live = { ...shipped, fields: { 'describe.title': 3, 'describe.title.stemmed': 2.5, 'name.stemmed': 2.5 } };
    assert.deepEqual((carriedRanking(live, definition) as { fields: unknown }).fields, { 'describe.title': 3 });
  });

  it('falls back to the shipped fields when none is left, and to the shipped tunables without live ones', () => {
    const live = { ...shipped, fields: { 'describe.title.phrases': 2 } };
    assert.deepEqual((carriedRanking(live, definition) as { fields: unknown }).fields, shipped.fields);
    assert.deepEqual(carriedRanking(undefined, definition), shipped);
  });
});
