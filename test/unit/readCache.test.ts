import assert from 'node:assert/strict';
import { ReadCache } from '../../src/search/readCache.js';

describe('unit: the read cache', () => {
  it('answers a key from memory within its lifetime, and reads again after it', async () => {
    let now = 0;
    let loads = 0;
    const cache = new ReadCache<number>(1000, 10, () => now);
    const load = async () => ++loads;
    assert.deepEqual(await cache.read('k', load), { value: 1, outcome: 'miss' });
    now = 999;
    assert.deepEqual(await cache.read('k', load), { value: 1, outcome: 'hit' });
    now = 1000;
    assert.deepEqual(await cache.read('k', load), { value: 2, outcome: 'miss' }, 'an answer as old as the lifetime was served');
  });

  it('identical reads in flight share one load', async () => {
    const cache = new ReadCache<string>(1000, 10, () => 0);
    let release!: (v: string) => void;
    let loads = 0;
    const load = () => {
      loads += 1;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const first = cache.read('k', load);
    const second = cache.read('k', load);
    release('page');
    assert.deepEqual(await first, { value: 'page', outcome: 'miss' });
    assert.deepEqual(await second, { value: 'page', outcome: 'joined' });
    assert.equal(loads, 1);
  });

  it('never keeps a failed read', async () => {
    const cache = new ReadCache<string>(1000, 10, () => 0);
    await assert.rejects(cache.read('k', async () => Promise.reject(new Error('es down'))), /es down/);
    assert.deepEqual(await cache.read('k', async () => 'page'), { value: 'page', outcome: 'miss' });
  });

  it('forgets the least recently used key beyond its capacity, and is off at lifetime 0', async () => {
    const cache = new ReadCache<string>(1000, 2, () => 0);
    await cache.read('a', async () => 'a');
    await cache.read('b', async () => 'b');
    await cache.read('c', async () => 'c');
    assert.equal((await cache.read('a', async () => 'a2')).outcome, 'miss');
    const off = new ReadCache<string>(0, 2, () => 0);
    await off.read('k', async () => 'x');
    assert.deepEqual(await off.read('k', async () => 'y'), { value: 'y', outcome: 'miss' });
  });
});
