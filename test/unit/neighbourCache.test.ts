import assert from 'node:assert/strict';
import { NeighbourCache, type ScoredId } from '../../src/search/neighbourCache.js';

describe('unit: the neighbour cache', () => {
  const search = (vector: number[], filter: unknown[] = []) => ({ size: 20, query: { knn: { field: 'embedding', query_vector: vector, k: 20, filter } } });
  const found = (id: string): ScoredId[] => [{ id, score: 0.9, matched: [] }];

  it('the same kNN search within its lifetime is answered from memory; after it, sent again', async () => {
    let now = 0;
    let sent = 0;
    const cache = new NeighbourCache(10_000, 100, () => now);
    const load = async () => found(`lst_${++sent}`);
    assert.equal((await cache.find(search([0.1, 0.2]), load)).outcome, 'miss');
    now = 9_999;
    const kept = await cache.find(search([0.1, 0.2]), load);
    assert.deepEqual([kept.outcome, kept.value[0]!.id], ['hit', 'lst_1']);
    now = 10_000;
    const again = await cache.find(search([0.1, 0.2]), load);
    assert.deepEqual([again.outcome, again.value[0]!.id], ['miss', 'lst_2']);
  });

  it('another vector or other filters are another search', async () => {
    let sent = 0;
    const cache = new NeighbourCache(10_000, 100, () => 0);
    const load = async () => found(`lst_${++sent}`);
    await cache.find(search([0.1, 0.2]), load);
    assert.equal((await cache.find(search([0.1, 0.2000001]), load)).outcome, 'miss');
    assert.equal((await cache.find(search([0.1, 0.2], [{ term: { type: 'mcp' } }]), load)).outcome, 'miss');
    assert.equal(sent, 3);
  });

  it('what it keeps cannot be changed by one reader for the next', async () => {
    const cache = new NeighbourCache(10_000, 100, () => 0);
    const { value } = await cache.find(search([1]), async () => [{ id: 'lst_a', score: 0.8, matched: ['oppositeDirection'] }]);
    assert.throws(() => ((value as ScoredId[]).length = 0));
    assert.throws(() => ((value[0] as { score: number }).score = 1));
    assert.throws(() => (value[0]!.matched as string[]).push('x'));
  });

  it('off at lifetime 0: every search is sent', async () => {
    let sent = 0;
    const cache = new NeighbourCache(0, 100, () => 0);
    assert.equal(cache.enabled, false);
    await cache.find(search([1]), async () => found(`lst_${++sent}`));
    await cache.find(search([1]), async () => found(`lst_${++sent}`));
    assert.equal(sent, 2);
  });
});
