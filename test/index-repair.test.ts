/**
 * The listing index disappearing at run time (deleted, or a fresh node on the same URL; issue 9,
 * defect 5): reads answer 503 search_unavailable instead of 500, /readyz says so, the index and
 * alias are re-created, and writes land instead of retrying index_not_found forever.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput } from './support/listings.js';

const READS = ['/discovery/resources', '/discovery/search?q=weather', '/mcp/tools?q=weather', '/discovery/resources/lst_000000000000000000000000'];

describe('losing the listing index at run time', function () {
  this.timeout(30_000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('while it is missing: every read is 503 search_unavailable and /readyz names the index', async () => {
    h = await startHarness({}, { workers: false });
    await h.elasticsearch.indices.delete({ index: h.config.listingsIndex });
    for (const path of READS) {
      const res = await request(h.app).get(path);
      assert.equal(res.status, 503, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'search_unavailable');
      assert.ok(res.headers['retry-after']);
    }
    const ready = await request(h.app).get('/readyz').expect(503);
    assert.deepEqual(ready.body.failing, ['listingIndex']);
    assert.equal(ready.body.checks.listingIndex, 'missing');
  });

  it('the service re-creates it with its mapping and alias; writes queued before and after land', async () => {
    h = await startHarness({ CATALOG_RETRY_BASE_MS: '50', CATALOG_RETRY_MAX_MS: '200' });
    const { writer, reader } = h.container.catalog;
    const before = await writer.upsert(httpInput({ resource: 'https://repair.example/before' }), { source: 'announce' });
    await waitFor(async () => (await reader.get(before.id)) !== undefined);

    await h.elasticsearch.indices.delete({ index: h.config.listingsIndex });
    const after = await writer.upsert(httpInput({ resource: 'https://repair.example/after' }), { source: 'announce' });
    await waitFor(async () => (await reader.get(after.id).catch(() => undefined)) !== undefined, 15_000, 100);

    const mapping = await h.elasticsearch.indices.getMapping({ index: h.config.listingsAlias });
    assert.equal(Object.keys(mapping)[0], h.config.listingsIndex);
    assert.equal((Object.values(mapping)[0]!.mappings as { dynamic?: string }).dynamic, 'strict');
    await request(h.app).get('/readyz').expect(200);
    const found = await waitFor(async () => {
      const res = await request(h!.app).get('/discovery/search').query({ q: 'weather' });
      return res.status === 200 && res.body.results.length === 1 ? res.body : undefined;
    });
    assert.equal(found.results[0].id, after.id);
    assert.equal((await h.container.catalog.queue.stats()).depth, 0);
  });

  it('with no writes at all, the periodic check re-creates it', async () => {
    h = await startHarness();
    await h.elasticsearch.indices.delete({ index: h.config.listingsIndex });
    await waitFor(async () => (await request(h!.app).get('/readyz')).status === 200, 15_000, 200);
    // Its shard may still be starting for a moment (503 meanwhile); then reads answer.
    await waitFor(async () => (await request(h!.app).get('/discovery/resources')).status === 200, 5000, 100);
  });
});
