import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { daysAgo, httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { relevanceByName } from './support/rankedSearch.js';
import { parseReadRequest } from '../src/search/readGrammar.js';
import { RankingChangeError, setRanking, showRanking } from '../src/search/rankingCommand.js';
import { RankingCache } from '../src/search/rankingCache.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';
import { shippedRanking } from '../src/search/rankingSettings.js';
import type { Logger } from '../src/logger.js';

interface Result {
  id: string;
  debug?: { score: number; relevance: number; priceBoost: number; recencyBoost: number; healthBoost: number; popularityBoost: number };
}

describe('catalog reads: ranked search, explain, /mcp/tools (SPEC 4.2, 4.4; DECISIONS "Ranking")', () => {
  let h: Harness;
  const id: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const specs = {
      exact: httpListing({ path: 'a1', title: 'Solar panel installer quotes', description: 'Quotes from solar panel installers' }),
      weak: httpListing({ path: 'a2', title: 'Garden lighting', description: 'Includes one solar lamp' }),
      cheap: httpListing({ path: 'b1', title: 'Lunar tide table', amount: '1000' }),
      dear: httpListing({ path: 'b2', title: 'Lunar tide table', amount: '900000' }),
      fresh: httpListing({ path: 'c1', title: 'Comet sighting log', lastSettled: daysAgo(1) }),
      stale: httpListing({ path: 'c2', title: 'Comet sighting log', lastSettled: daysAgo(12) }),
      never: httpListing({ path: 'c3', title: 'Comet sighting log' }),
      titled: httpListing({ path: 'd1', title: 'Zebra migration', description: 'Herd routes' }),
      described: httpListing({ path: 'd2', title: 'Herd routes', description: 'Zebra migration' }),
      toolA: mcpListing({ name: 'comet_orbit', description: 'Comet orbit calculator', amount: '500', lastSettled: daysAgo(2) }),
      toolB: mcpListing({ name: 'comet_tail', description: 'Comet tail length estimate', amount: '50' }),
      toolC: mcpListing({ name: 'comet_name', description: 'Comet naming helper', amount: '5000' }),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
  });
  after(async () => h.close());

  const search = async (query: string): Promise<Result[]> => (await request(h.app).get(`/discovery/search?${query}`).expect(200)).body.results;
  const order = (results: Result[], ...keys: string[]) => results.map((r) => r.id).filter((x) => keys.some((k) => id[k] === x));

  describe('q is required', () => {
    for (const query of ['', '?q=', '?q=%20%20%20', '?limit=5']) {
      for (const path of ['/discovery/search', '/mcp/tools']) {
        it(`${path}${query}: 400 missing_query`, async () => {
          const res = await request(h.app).get(`${path}${query}`).expect(400);
          assert.equal(res.body.code, 'missing_query');
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        });
      }
    }
  });

  describe('ranking', () => {
    it('a closer text match outranks a weaker one', async () => {
      assert.deepEqual(order(await search('q=solar%20panel%20installer'), 'exact', 'weak'), [id.exact, id.weak]);
    });

    it('at equal text the cheaper listing ranks higher', async () => {
      assert.deepEqual(order(await search('q=lunar%20tide'), 'cheap', 'dear'), [id.cheap, id.dear]);
    });

    it('at equal text the more recently settled listing ranks higher; never settled is not an error', async () => {
      const ranked = order(await search('q=comet%20sighting&type=http'), 'fresh', 'stale', 'never');
      assert.equal(ranked.length, 3);
      assert.equal(ranked[0], id.fresh);
      assert.ok(ranked.indexOf(id.fresh!) < ranked.indexOf(id.stale!));
    });

    it('sort=price: cheapest first; sort=recent: most recently settled first, never settled last', async () => {
      const byPrice = await search('q=comet&type=mcp&sort=price');
      assert.deepEqual(byPrice.map((r) => r.id), [id.toolB, id.toolA, id.toolC]);
      const byRecent = await search('q=comet%20sighting&type=http&sort=recent');
      assert.deepEqual(byRecent.map((r) => r.id), [id.fresh, id.stale, id.never]);
    });

    it('the same query gives the same order', async () => {
      const first = await search('q=comet');
      const second = await search('q=comet');
      assert.deepEqual(first.map((r) => r.id), second.map((r) => r.id));
    });
  });

  describe('explain=1', () => {
    const close = (a: number, b: number) => Math.abs(a - b) <= 1e-4 * Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);

    for (const sort of ['rank', 'price', 'recent']) {
      it(`sort=${sort}: debug.score is Elasticsearch's _score and relevance x priceBoost x recencyBoost (x healthBoost, 1 when never checked) equals it`, async () => {
        const query = `q=comet%20sighting%20lunar%20solar&sort=${sort}&limit=50`;
        const results = await search(`${query}&explain=1`);
        assert.ok(results.length >= 8);
        // The plain (explain=0) query sent straight to Elasticsearch: explain must not change any score.
        const parsed = parseReadRequest('search', { q: 'comet sighting lunar solar', sort, limit: '50' });
        const { body } = await h.container.search.search.buildRequest(parsed);
        const direct = await h.elasticsearch.search({ index: h.config.listingsAlias, ...body, track_scores: true } as never);
        const scores = new Map(direct.hits.hits.map((hit) => [hit._id, hit._score]));
        for (const r of results) {
          const d = r.debug!;
          assert.ok(d, 'every result carries debug');
          assert.deepEqual(Object.keys(d).sort(), ['healthBoost', 'popularityBoost', 'priceBoost', 'recencyBoost', 'relevance', 'score']);
          // No listing here was ever health-checked or paid for by anyone: SPEC.md's three factors alone multiply to the score.
          assert.equal(d.healthBoost, 1);
          assert.equal(d.popularityBoost, 1);
          assert.ok(close(d.score, scores.get(r.id) as number), `score ${d.score} vs _score ${scores.get(r.id)}`);
          assert.ok(close(d.relevance * d.priceBoost * d.recencyBoost, d.score), JSON.stringify(d));
          assert.ok(d.relevance > 0 && d.priceBoost > 0 && d.priceBoost <= 1 && d.recencyBoost > 0 && d.recencyBoost <= 1);
        }
        if (sort === 'rank') {
          // relevance is the score with the factors divided out: Elasticsearch's own, read by name.
          const byName = await relevanceByName(h, parsed);
          for (const r of results) assert.ok(close(r.debug!.relevance, byName.get(r.id)!), `${r.id}: ${r.debug!.relevance} vs ${byName.get(r.id)} by name`);
        }
        const debugOf = (key: string) => results.find((r) => r.id === id[key])!.debug!;
        assert.ok(debugOf('cheap').priceBoost > debugOf('dear').priceBoost);
        assert.ok(close(debugOf('cheap').relevance, debugOf('dear').relevance));
        assert.ok(debugOf('fresh').recencyBoost > debugOf('stale').recencyBoost);
        assert.equal(debugOf('never').recencyBoost, shippedRanking().recency.neverSettled, 'never settled: the neverSettled factor of _meta.ranking');
        const { price, recency } = shippedRanking();
        for (const r of results) {
          assert.ok(r.debug!.priceBoost >= price.floor - 1e-6, `price factor ${r.debug!.priceBoost} within its floor ${price.floor}`);
          assert.ok(r.debug!.recencyBoost >= Math.min(recency.floor, recency.neverSettled) - 1e-6, 'recency factor within its floor');
        }
      });
    }

    it('without explain=1 there is no debug block (explain=0 too)', async () => {
      for (const query of ['q=comet', 'q=comet&explain=0']) {
        for (const r of await search(query)) assert.ok(!('debug' in r));
      }
    });
  });

  describe('/mcp/tools', () => {
    for (const query of ['q=comet', 'q=comet&sort=price', 'q=comet&sort=recent&limit=2', 'q=comet&explain=1', 'q=comet&type=mcp', 'q=comet&maxPrice=600', 'q=sighting']) {
      it(`?${query} equals /discovery/search?${query}&type=mcp`, async () => {
        const tools = await request(h.app).get(`/mcp/tools?${query}`).expect(200);
        const searched = await request(h.app).get(`/discovery/search?${query}${query.includes('type=') ? '' : '&type=mcp'}`).expect(200);
        // Cursors embed the clock of the request that made them; both lead to the same next page.
        // The recency factor follows the clock, so scores may differ in the last digits between two calls.
        const strip = (results: Result[]) => results.map(({ debug, ...rest }) => ({ ...rest, relevance: debug?.relevance, priceBoost: debug?.priceBoost }));
        assert.deepEqual(strip(tools.body.results), strip(searched.body.results));
        tools.body.results.forEach((r: Result, i: number) => {
          if (r.debug) assert.ok(Math.abs(r.debug.score - searched.body.results[i].debug.score) <= 1e-4 * r.debug.score);
        });
        assert.equal(typeof tools.body.nextCursor, typeof searched.body.nextCursor);
        assert.deepEqual(Object.keys(tools.body), Object.keys(searched.body));
      });
    }

    it('pages with the same cursors as search?type=mcp', async () => {
      const first = await request(h.app).get('/mcp/tools?q=comet&limit=2').expect(200);
      const next = await request(h.app).get(`/discovery/search?q=comet&type=mcp&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`).expect(200);
      const whole = await request(h.app).get('/discovery/search?q=comet&type=mcp&limit=10').expect(200);
      const ids = (body: { results: Result[] }) => body.results.map((r) => r.id);
      assert.equal(whole.body.results.length, 3);
      assert.deepEqual([...ids(first.body), ...ids(next.body)], ids(whole.body));
    });

    it('type other than mcp is refused; the other errors are search\'s', async () => {
      const res = await request(h.app).get('/mcp/tools?q=comet&type=http').expect(400);
      assert.equal(res.body.code, 'invalid_filter_value');
      assert.equal(res.body.errors[0].path, 'type');
      assert.equal((await request(h.app).get('/mcp/tools?q=comet&sort=name').expect(400)).body.code, 'invalid_filter_value');
      assert.equal((await request(h.app).get('/mcp/tools?q=comet&page=2').expect(400)).body.code, 'unknown_filter');
    });
  });

  describe('tunables live in the index', () => {
    const metaRanking = async () => {
      const mapping = await h.elasticsearch.indices.getMapping({ index: h.config.listingsAlias });
      return Object.values(mapping)[0]!.mappings._meta as { ranking: { fields: Record<string, number>; price: Record<string, unknown> } };
    };

    it('a changed field boost changes the order without a restart; nonsense is ignored', async () => {
      assert.deepEqual(order(await search('q=zebra%20migration'), 'titled', 'described'), [id.titled, id.described]);
      const meta = await metaRanking();
      meta.ranking.fields['describe.description'] = 20;
      meta.ranking.fields['describe.title'] = 0.5;
      await h.elasticsearch.indices.putMapping({ index: h.config.listingsAlias, _meta: meta });
      await waitFor(async () => {
        const ranked = order(await search('q=zebra%20migration'), 'titled', 'described');
        return ranked[0] === id.described;
      }, 5000);
      // Nonsense keeps the last good settings: the order stays and search keeps answering.
      meta.ranking.price.decay = 7;
      await h.elasticsearch.indices.putMapping({ index: h.config.listingsAlias, _meta: meta });
      await h.container.search.ranking.refresh();
      assert.deepEqual(order(await search('q=zebra%20migration'), 'titled', 'described'), [id.described, id.titled]);
    });

    it('invalid tunables: one warning naming the problem, the last good settings stay in force', async () => {
      const warnings: Array<{ message: string; meta: { problems: string[] } }> = [];
      const logger = { warn: (message: string, meta: { problems: string[] }) => warnings.push({ message, meta }), debug: () => {} } as unknown as Logger;
      const meta = await metaRanking();
      meta.ranking.price.decay = 0.5; // the previous test left nonsense behind
      await h.elasticsearch.indices.putMapping({ index: h.config.listingsAlias, _meta: meta });
      const saved = structuredClone(meta);
      const cache = new RankingCache(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 1000, logger);
      const good = await cache.current();
      assert.equal(warnings.length, 0);
      // Unchanged tunables keep their object (what is built per tunables object stays built) and version.
      const version = cache.version;
      assert.equal(await cache.refresh(), good);
      assert.equal(cache.version, version);
      meta.ranking.price.decay = 'steep' as unknown as number;
      meta.ranking.fields['describe.colour'] = 2;
      await h.elasticsearch.indices.putMapping({ index: h.config.listingsAlias, _meta: meta });
      try {
        assert.deepEqual(await cache.refresh(), good);
        assert.deepEqual(await cache.refresh(), good);
        assert.equal(warnings.length, 1, 'the same problem is logged once, not on every refresh');
        assert.match(warnings[0]!.meta.problems.join(' '), /price\.decay="steep"/);
        assert.match(warnings[0]!.meta.problems.join(' '), /fields\.describe\.colour: not a text field/);
      } finally {
        await h.elasticsearch.indices.putMapping({ index: h.config.listingsAlias, _meta: saved });
      }
    });

    it('the ranking command changes one tunable on the live index, BM25 k1 included, and refuses nonsense', async () => {
      const alias = h.config.listingsAlias;
      await setRanking(new RankingTunablesIndex(h.elasticsearch, alias), 'price.decay', '0.5');
      await setRanking(new RankingTunablesIndex(h.elasticsearch, alias), 'recency.scale', '3d');
      await setRanking(new RankingTunablesIndex(h.elasticsearch, alias), 'bm25.k1', '1.6');
      const { settings, problems } = await showRanking(new RankingTunablesIndex(h.elasticsearch, alias));
      assert.deepEqual(problems, []);
      assert.equal(settings!.recency.scale, '3d');
      assert.equal(settings!.bm25.k1, 1.6);
      for (const [key, value] of [['bm25.b', '2'], ['recency.scale', 'soon'], ['fields.nope', '2'], ['price.scale', 'x'], ['colour', '1']] as const) {
        await assert.rejects(setRanking(new RankingTunablesIndex(h.elasticsearch, alias), key, value), RankingChangeError);
      }
      assert.deepEqual((await showRanking(new RankingTunablesIndex(h.elasticsearch, alias))).settings, settings);
      await h.container.search.ranking.refresh();
      assert.ok((await search('q=comet')).length > 0, 'search answers after the index was closed and reopened');
    });
  });
});
