import assert from 'node:assert/strict';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { discoveryRoutes } from '../src/http/routes/discovery.js';
import { buildCatalogSearch } from '../src/search/index.js';
import { createElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { startHarness, testConfig, waitFor, type Harness } from './support/harness.js';
import { BASE, BASE_SEPOLIA, httpListing, mcpListing, seed, waitSearchable } from './support/discoveryFixtures.js';
import { storesFor } from '../src/store/stores.js';

const HTTP_KEYS = ['describe', 'id', 'payment', 'resource', 'signals', 'type'];
const MCP_KEYS = ['description', 'id', 'inputSchema', 'name', 'payment', 'resource', 'signals', 'tags', 'type'];

describe('catalog reads: filters and validation (SPEC 4.1, 7; DECISIONS "Catalog reads")', () => {
  let h: Harness;
  const ids: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const [weather, stocks, pricey, tool, gone] = await seed(h, [
      httpListing({ path: 'weather', title: 'Weather forecast', tags: ['Weather'], amount: '1000', payTo: '0xAbCd000000000000000000000000000000000001' }),
      httpListing({ path: 'stocks', title: 'Stock quotes', tags: ['finance'], amount: '50000', network: BASE, asset: 'USDT', scheme: 'upto' }),
      httpListing({ path: 'pricey', title: 'Premium translation', tags: ['nlp'], amount: '9007199254740993' }),
      mcpListing({ name: 'summarize_doc', description: 'Summarize a document', tags: ['nlp', 'weather'] }),
      httpListing({ path: 'gone', title: 'Vanished quasar catalogue', tags: ['weather'], amount: '10' }),
    ]);
    Object.assign(ids, { weather, stocks, pricey, tool, gone });
    await h.container.catalog.writer.remove(gone!, 'operator');
    await waitSearchable(h, [gone!], { term: { removed: true } });
  });
  after(async () => h.close());

  const resources = (query: string) => request(h.app).get(`/discovery/resources${query}`);
  const idsOf = (body: { results: Array<{ id: string }> }) => body.results.map((r) => r.id).sort();

  describe('unknown parameters', () => {
    for (const path of ['/discovery/resources', '/discovery/search', '/mcp/tools']) {
      it(`${path}: an unknown parameter gives 400 unknown_filter naming it`, async () => {
        const res = await request(h.app).get(`${path}?${path === '/discovery/resources' ? '' : 'q=weather&'}offset=20`).expect(400);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(res.body.code, 'unknown_filter');
        assert.match(res.body.detail, /offset/);
        assert.deepEqual(res.body.errors, [{ path: 'offset', message: 'is not a known filter' }]);
      });
    }

    it('search-only parameters are unknown on /discovery/resources', async () => {
      for (const name of ['q', 'sort', 'explain']) {
        const res = await resources(`?${name}=1`).expect(400);
        assert.equal(res.body.code, 'unknown_filter');
        assert.equal(res.body.errors[0].path, name);
      }
    });
  });

  describe('bad values give 400 invalid_filter_value naming the parameter', () => {
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=-5', 'limit'],
      ['limit=2.5', 'limit'],
      ['maxPrice=abc', 'maxPrice'],
      ['maxPrice=-1', 'maxPrice'],
      ['maxPrice=1.5', 'maxPrice'],
      ['maxPrice=', 'maxPrice'],
      ['type=ftp', 'type'],
      ['scheme=batch', 'scheme'],
      ['network=not-a-network', 'network'],
      ['asset=', 'asset'],
      ['type=http&type=mcp', 'type'],
      ['network=eip155:1&network=eip155:2', 'network'],
    ];
    for (const [query, name] of cases) {
      it(`/discovery/resources?${query}`, async () => {
        const res = await resources(`?${query}`).expect(400);
        assert.equal(res.body.code, 'invalid_filter_value');
        assert.ok(res.body.errors.some((e: { path: string }) => e.path === name), JSON.stringify(res.body));
        assert.match(res.body.detail, new RegExp(name));
      });
    }
    const searchCases: Array<[string, string]> = [['sort=name', 'sort'], ['explain=2', 'explain'], ['explain=true', 'explain'], ['q=a&q=b', 'q'], ['limit=0', 'limit']];
    for (const [query, name] of searchCases) {
      it(`/discovery/search?q=x&${query}`, async () => {
        const res = await request(h.app).get(`/discovery/search?${query.startsWith('q=') ? '' : 'q=x&'}${query}`).expect(400);
        assert.equal(res.body.code, 'invalid_filter_value');
        assert.equal(res.body.errors[0].path, name);
      });
    }

    it('hostile or malformed query strings get a 200 or a 400 problem, never a 500', async () => {
      const paths = [
        '/discovery/search?q=%ZZ%', '/discovery/search?q=%00%01', '/discovery/search?q[]=x', '/discovery/search?q=a&q[$ne]=1',
        `/discovery/search?q=${'x'.repeat(600)}`, `/discovery/search?q=${encodeURIComponent('{"script":"1"} OR *:* AND "')}`,
        '/discovery/resources?limit=1e2', '/discovery/resources?limit=0x10', `/discovery/resources?cursor=${'A'.repeat(5000)}.x`,
        '/discovery/resources?cursor=%00', '/discovery/resources?capability=%00', `/discovery/resources?asset=${'a'.repeat(300)}`,
        '/discovery/resources?maxPrice=1%2B1', '/mcp/tools?q=weather&explain=1&sort=recent&limit=100',
      ];
      for (const path of paths) {
        const res = await request(h.app).get(path);
        assert.ok(res.status === 200 || res.status === 400, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
        if (res.status === 400) assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      }
    });

    it('lists every bad value at once', async () => {
      const res = await resources('?limit=0&type=ftp&maxPrice=x').expect(400);
      assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path).sort(), ['limit', 'maxPrice', 'type']);
    });
  });

  describe('filters', () => {
    it('no filter lists every live listing, never a removed one', async () => {
      const res = await resources('?limit=100').expect(200);
      assert.deepEqual(idsOf(res.body), [ids.weather, ids.stocks, ids.pricey, ids.tool].sort());
      assert.equal(res.body.nextCursor, undefined);
    });

    it('zero matches: 200 with results [] and no nextCursor', async () => {
      const res = await resources('?network=eip155:1').expect(200);
      assert.deepEqual(res.body, { results: [] });
    });

    it('network, with legacy x402 v1 names mapped to CAIP-2', async () => {
      assert.deepEqual(idsOf((await resources(`?network=${BASE}`).expect(200)).body), [ids.stocks]);
      const legacy = (await resources('?network=base-sepolia').expect(200)).body;
      assert.deepEqual(idsOf(legacy), idsOf((await resources(`?network=${BASE_SEPOLIA}`).expect(200)).body));
      assert.equal(legacy.results.length, 3);
    });

    it('type', async () => {
      assert.deepEqual(idsOf((await resources('?type=mcp').expect(200)).body), [ids.tool]);
      assert.equal((await resources('?type=http').expect(200)).body.results.length, 3);
    });

    it('maxPrice compares integers exactly: amount <= maxPrice, above 2^53 too', async () => {
      assert.deepEqual(idsOf((await resources('?maxPrice=1000').expect(200)).body), [ids.weather, ids.tool].sort());
      assert.deepEqual(idsOf((await resources('?maxPrice=999').expect(200)).body), []);
      assert.deepEqual(idsOf((await resources('?maxPrice=0').expect(200)).body), []);
      const below = (await resources('?maxPrice=9007199254740992').expect(200)).body;
      assert.ok(!idsOf(below).includes(ids.pricey!), 'a float comparison would include 2^53+1');
      const at = (await resources('?maxPrice=9007199254740993').expect(200)).body;
      assert.ok(idsOf(at).includes(ids.pricey!));
    });

    it('maxPrice above the largest stored amount (even beyond 64 bits) means no ceiling', async () => {
      for (const ceiling of ['9223372036854775807', '99999999999999999999999999']) {
        assert.equal((await resources(`?maxPrice=${ceiling}`).expect(200)).body.results.length, 4);
      }
    });

    it('asset and payTo, case-insensitively', async () => {
      assert.deepEqual(idsOf((await resources('?asset=usdt').expect(200)).body), [ids.stocks]);
      const payTo = (await resources('?payTo=0xabcd000000000000000000000000000000000001').expect(200)).body;
      assert.deepEqual(idsOf(payTo), [ids.weather]);
    });

    it('scheme', async () => {
      assert.deepEqual(idsOf((await resources('?scheme=upto').expect(200)).body), [ids.stocks]);
      assert.equal((await resources('?scheme=exact').expect(200)).body.results.length, 3);
    });

    it('capability matches describe.tags and MCP tags', async () => {
      assert.deepEqual(idsOf((await resources('?capability=weather').expect(200)).body), [ids.weather, ids.tool].sort());
      assert.deepEqual(idsOf((await resources('?capability=nlp').expect(200)).body), [ids.pricey, ids.tool].sort());
      assert.deepEqual(idsOf((await resources('?capability=nlp&type=http').expect(200)).body), [ids.pricey]);
    });

    it('filters combine and apply to search too', async () => {
      const res = await request(h.app).get('/discovery/search?q=weather&capability=weather&type=http').expect(200);
      assert.deepEqual(idsOf(res.body), [ids.weather]);
    });
  });

  describe('responses', () => {
    it('listings carry the SPEC section 2 shape and nothing internal', async () => {
      const res = await resources('?limit=100').expect(200);
      // `provenance` is the documented addition (the evidence a listing stands on, issue 24): its
      // entries name their own sources, so the check for leaked internal fields reads the rest.
      const withoutProvenance = res.body.results.map(({ provenance, ...rest }: { provenance?: unknown }) => {
        if (provenance !== undefined) assert.equal(typeof provenance, 'object');
        return rest;
      });
      for (const listing of withoutProvenance) {
        assert.deepEqual(Object.keys(listing).sort(), listing.type === 'mcp' ? MCP_KEYS : HTTP_KEYS);
        assert.equal(typeof listing.payment.amount, 'string');
        assert.match(listing.id, /^lst_/);
      }
      assert.doesNotMatch(JSON.stringify(withoutProvenance), /canonicalKey|firstSeen|lastSeen|removed|updatedAt|keywords|"host"|"source"/);
      const weather = res.body.results.find((l: { id: string }) => l.id === ids.weather);
      assert.deepEqual(weather.payment, {
        scheme: 'exact', network: BASE_SEPOLIA, asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '1000',
        payTo: '0xAbCd000000000000000000000000000000000001',
      });
      assert.equal(res.body.results.find((l: { id: string }) => l.id === ids.pricey).payment.amount, '9007199254740993');
    });

    it('a removed listing appears in no read', async () => {
      for (const path of ['/discovery/resources?capability=weather', '/discovery/search?q=vanished%20quasar', '/mcp/tools?q=quasar']) {
        const res = await request(h.app).get(path).expect(200);
        assert.ok(!JSON.stringify(res.body).includes(ids.gone!), path);
      }
    });

    it('Elasticsearch unreachable: 503 search_unavailable, not a crash', async () => {
      const config = testConfig({ ELASTICSEARCH_URL: 'http://127.0.0.1:1' });
      const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 500 });
      const { search, merchants } = buildCatalogSearch(config, h.logger, storesFor({ elasticsearch, redis: h.redis }, config));
      const app = createApp({ config, logger: h.logger, elasticsearch, redis: h.redis, routers: [discoveryRoutes(search, merchants)] });
      for (const path of ['/discovery/resources', '/discovery/search?q=weather', '/mcp/tools?q=weather', '/discovery/merchant?payTo=0xabc']) {
        const res = await request(app).get(path).expect(503);
        assert.equal(res.body.code, 'search_unavailable');
      }
      await elasticsearch.close();
    });

    it('a new write becomes visible to search promptly', async () => {
      const [fresh] = (await h.container.catalog.writer.upsertMany([httpListing({ path: 'fresh', title: 'Freshly minted nebula map' })], { source: 'import' }))
        .accepted.map((a) => a.id);
      await waitFor(async () => {
        const res = await request(h.app).get('/discovery/search?q=nebula').expect(200);
        return res.body.results.some((l: { id: string }) => l.id === fresh);
      }, 5000);
    });
  });
});
