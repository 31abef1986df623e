import assert from 'node:assert/strict';
import { startHarness, type Harness } from './support/harness.js';
import { searchesSegmentsInParallel } from '../src/store/elasticsearch/segmentSearch.js';

/**
 * Ranked search pages repeat listings when the approximate kNN search returns other neighbours on
 * each run, which it does with a shard's segments searched in parallel (docs/catalog-reads.md,
 * "Cursors"): the nodes scripts/services.sh starts search them one after another, and the server
 * warns at start about a cluster that does not.
 */
describe('Elasticsearch searches segments one after another (stable kNN neighbours, stable pages)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.elasticsearch.cluster.putSettings({ persistent: { 'search.query_phase_parallel_collection_enabled': null } });
    await h.close();
  });

  it('the node scripts/services.sh starts has parallel collection off, and a cluster setting that turns it on is seen', async () => {
    assert.equal(await searchesSegmentsInParallel(h.elasticsearch), false);
    await h.elasticsearch.cluster.putSettings({ persistent: { 'search.query_phase_parallel_collection_enabled': true } });
    assert.equal(await searchesSegmentsInParallel(h.elasticsearch), true);
    await h.elasticsearch.cluster.putSettings({ persistent: { 'search.query_phase_parallel_collection_enabled': null } });
    assert.equal(await searchesSegmentsInParallel(h.elasticsearch), false, 'back to the node setting');
  });
});
