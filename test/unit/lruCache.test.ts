import assert from 'node:assert/strict';
import { LruCache, normalizedQuery } from '../../src/core/lruCache.js';

describe('unit: LRU cache of the search path', () => {
  it('forgets the least recently used entry first: a hit counts as a use', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    assert.equal(cache.get('a'), 1);
    cache.set('c', 3);
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 1);
    assert.equal(cache.get('c'), 3);
  });

  it('keys a query the same whatever its spacing and case', () => {
    assert.equal(normalizedQuery('  Weather   FORECAST\t'), 'weather forecast');
  });
});
