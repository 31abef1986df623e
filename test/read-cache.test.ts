import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { setRanking } from '../src/search/rankingCommand.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';

interface Result {
  id: string;
  payment: { amount: string };
}

/**
 * The read cache (docs/catalog-reads.md, "Read cache"): an identical read within a second is
 * answered from memory, but never past its lifetime and never across a change of the ranking tunables.
 */
describe('the read cache', () => {
  let h: Harness;
  let ids: string[];
  const search = async (q: string): Promise<Result[]> =>
    (await request(h.app).get(`/discovery/search?q=${encodeURIComponent(q)}`).expect(200)).body.results;
  const cacheCount = async (outcome: string): Promise<number> => {
    const text = (await request(h.app).get('/metrics').expect(200)).text;
    const line = text.split('\n').find((l) => l.startsWith(`catalog_read_cache_total{outcome="${outcome}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  before(async () => {
    h = await startHarness({ READ_CACHE_MS: '1000' });
    ids = await seed(h, [
      httpListing({ path: 'nebula-a', title: 'Nebula catalog lookup', description: 'Deep-sky objects by name.', amount: '1000' }),
      httpListing({ path: 'nebula-b', title: 'Nebula image archive', description: 'Telescope images of nebulae.', amount: '2000' }),
    ]);
  });
  after(async () => h.close());

  it('answers an identical read from memory, and identical reads in flight wait for one', async () => {
    const hits = await cacheCount('hit');
    const joined = await cacheCount('joined');
    const misses = await cacheCount('miss');
    const pages = await Promise.all(Array.from({ length: 8 }, () => search('nebula archive')));
    for (const page of pages) assert.deepEqual(page, pages[0]);
    assert.equal((await cacheCount('miss')) - misses, 1, 'eight identical reads went to Elasticsearch more than once');
    assert.equal((await cacheCount('hit')) - hits + (await cacheCount('joined')) - joined, 7);
  });

  it('another query, filter or page size is another read', async () => {
    const misses = await cacheCount('miss');
    await search('nebula catalog');
    await request(h.app).get('/discovery/search?q=nebula%20catalog&limit=1').expect(200);
    await request(h.app).get('/discovery/search?q=nebula%20catalog&maxPrice=1500').expect(200);
    assert.equal((await cacheCount('miss')) - misses, 3);
  });

  it('a removed or re-priced listing shows in reads once the cache lifetime has passed', async () => {
    const q = 'nebula telescope images';
    assert.ok((await search(q)).some((r) => r.id === ids[1]));
    await h.container.catalog.writer.upsertMany([httpListing({ path: 'nebula-b', title: 'Nebula image archive', description: 'Telescope images of nebulae.', amount: '7000' })], { source: 'import' });
    await waitFor(async () => {
      await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
      const doc = await h.elasticsearch.get<{ payment: { amount: number } }>({ index: h.config.listingsAlias, id: ids[1]! });
      return String(doc._source?.payment.amount) === '7000';
    }, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await search(q)).find((r) => r.id === ids[1])?.payment.amount, '7000', 'a price older than the cache lifetime was served');

    await h.container.catalog.writer.remove(ids[1]!, 'operator');
    await waitFor(async () => {
      await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
      const doc = await h.elasticsearch.get<{ removed?: boolean }>({ index: h.config.listingsAlias, id: ids[1]! });
      return doc._source?.removed === true;
    }, 15_000);
    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.ok(!(await search(q)).some((r) => r.id === ids[1]), 'a removed listing was served after the cache lifetime');
  });

  it('a change of the ranking tunables is never answered from the cache', async () => {
    const q = 'nebula lookup';
    const before = await request(h.app).get(`/discovery/search?q=${encodeURIComponent(q)}&explain=1`).expect(200);
    await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'fields.phrase_text', '3');
    await h.container.search.ranking.refresh();
    const after = await request(h.app).get(`/discovery/search?q=${encodeURIComponent(q)}&explain=1`).expect(200);
    const score = (body: { results: Array<{ debug: { score: number } }> }) => body.results[0]!.debug.score;
    assert.notEqual(score(after.body), score(before.body), 'the answer of the old tunables was served');
  });

  it('reads are marked reusable for a second by caches in front of the service; errors are not', async () => {
    for (const path of ['/discovery/search?q=nebula', '/discovery/resources?limit=1', `/discovery/resources/${ids[0]}`, '/x402/discovery/resources?limit=1']) {
      const res = await request(h.app).get(path).expect(200);
      assert.equal(res.headers['cache-control'], 'public, max-age=1', path);
      assert.equal(res.headers.etag, undefined, path);
    }
    const bad = await request(h.app).get('/discovery/search?q=nebula&limit=0').expect(400);
    assert.equal(bad.headers['cache-control'], undefined);
  });

  it('large pages are compressed for clients that accept it; small ones are not', async () => {
    const schema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${i}`, { type: 'string', description: `Input number ${i} of the comet tool, described at some length.` }])) };
    const tools = Array.from({ length: 30 }, (_, i) => ({ ...mcpListing({ name: `comet_tool_${i}`, description: 'Comet orbit tool.' }), inputSchema: schema }));
    await seed(h, tools);
    const big = await request(h.app).get('/discovery/search?q=comet&limit=100').set('Accept-Encoding', 'gzip').expect(200);
    assert.equal(big.headers['content-encoding'], 'gzip');
    assert.equal(big.body.results.length, 30, 'the compressed page decodes to the whole page');
    const small = await request(h.app).get('/discovery/search?q=comet&limit=1').set('Accept-Encoding', 'gzip').expect(200);
    assert.equal(small.headers['content-encoding'], undefined);
    const plain = await request(h.app).get('/discovery/search?q=comet&limit=100').set('Accept-Encoding', 'identity').expect(200);
    assert.equal(plain.headers['content-encoding'], undefined);
  });
});
