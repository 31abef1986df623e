import assert from 'node:assert/strict';
import { startHarness, type Harness } from './support/harness.js';
import { httpListing, mcpListing, seed } from './support/discoveryFixtures.js';
import { assertExplainMultiplies, idsOfEveryPage, rankedSearchSession, relevanceByName } from './support/rankedSearch.js';
import { FilterShare } from '../src/search/filterShare.js';
import { filterClauses } from '../src/search/readClauses.js';
import { parseReadRequest } from '../src/search/readGrammar.js';
import { ListingSearchIndex } from '../src/store/elasticsearch/listingSearch.js';
import type { Debug } from '../src/shapes/listing.js';

interface Result {
  id: string;
  type: string;
  payment: { amount: string; network: string };
  debug?: Debug;
}

/**
 * A broad filter left out of the kNN search (semantic.preFilterMaxShare, search/filterShare.ts):
 * the query still holds every result to the read's filters, listings found only by meaning still
 * come back, explain still multiplies, and paging still shows every match once.
 */
describe('ranked search: broad filters applied after the kNN search', () => {
  let h: Harness;
  let shippedShare: string;
  const id: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    const specs = {
      // Found by meaning only (no word in common with MEANING_ONLY), cheap and expensive, HTTP and MCP.
      plates: httpListing({ path: 'plates', title: 'Licence plate reader', description: 'Reads vehicle registration plates from camera frames.', tags: ['anpr'] }),
      platesPricey: httpListing({ path: 'plates-pro', title: 'ANPR camera service', description: 'Registration plate recognition for parking garages.', amount: '5000000' }),
      platesTool: mcpListing({ name: 'read_plate', description: 'Vehicle registration from a photo of the plate.' }),
      ...Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `weather${i}`,
          httpListing({ path: `weather-${i}`, title: `Weather forecast ${i}`, description: `Hourly weather forecast for region ${i}: rain, wind, temperature.`, amount: String(1000 + i * 500) }),
        ]),
      ),
      weatherTool: mcpListing({ name: 'weather_now', description: 'Current weather and a short forecast for a city.' }),
      translate: mcpListing({ name: 'translate_text', description: 'Translate text between 40 languages.' }),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
    shippedShare = String((await h.container.search.ranking.current()).semantic.preFilterMaxShare);
  });
  after(async () => h.close());

  const { set, page, search, names } = rankedSearchSession<Result>(() => h, id);
  const MEANING_ONLY = 'number recognition for cars in traffic images';

  it('the share of a filter is counted on the real index', async () => {
    const share = new FilterShare(new ListingSearchIndex(h.elasticsearch, h.config.listingsAlias));
    const of = (query: Record<string, string>) => share.of(filterClauses(parseReadRequest('search', { q: 'x', ...query }).filters).filter);
    assert.equal(await of({ type: 'mcp' }), 3 / 17);
    assert.equal(await of({ type: 'http' }), 14 / 17);
    assert.equal(await of({}), undefined);
  });

  for (const fusion of ['weighted', 'rrf'] as const) {
    describe(`every filter broad (preFilterMaxShare at its lowest), semantic.fusion ${fusion}`, () => {
      before(async () => {
        await set('semantic.fusion', fusion);
        await set('semantic.preFilterMaxShare', '0.05');
      });
      after(async () => {
        await set('semantic.fusion', 'weighted');
        await set('semantic.preFilterMaxShare', shippedShare);
      });

      it("the read's filters hold on listings found by meaning, which still come back", async () => {
        const http = await search(MEANING_ONLY, '&type=http&limit=50');
        assert.ok(http.some((r) => r.id === id.plates) && http.some((r) => r.id === id.platesPricey), names(http));
        assert.ok(http.every((r) => r.type === 'http'), names(http));
        const tools = await search(MEANING_ONLY, '&type=mcp&limit=50');
        assert.ok(tools.some((r) => r.id === id.platesTool), names(tools));
        assert.ok(tools.every((r) => r.type === 'mcp'), names(tools));
        const cheap = await search(MEANING_ONLY, '&maxPrice=10000&limit=50');
        assert.ok(cheap.some((r) => r.id === id.plates) && !cheap.some((r) => r.id === id.platesPricey), names(cheap));
        assert.ok(cheap.every((r) => BigInt(r.payment.amount) <= 10_000n), names(cheap));
      });

      it('explain: relevance x priceBoost x recencyBoost x healthBoost x popularityBoost is the score within 1e-4', async () => {
        for (const q of [MEANING_ONLY, 'weather forecast']) {
          const results = await search(q, '&type=http&explain=1&limit=50');
          assert.ok(results.length > 0, q);
          for (const { debug } of results) assertExplainMultiplies(debug, q);
        }
      });

      it('paging through the rank window and past it never repeats a listing and loses none', async () => {
        const window = String((await h.container.search.ranking.current()).window);
        await set('window', '4');
        try {
          const whole = (await search('weather forecast temperature', '&type=http&limit=100')).map((r) => r.id);
          assert.ok(whole.length > 8, `${whole.length} matches`);
          const seen = await idsOfEveryPage((cursor) => page('weather forecast temperature', `&type=http&limit=3${cursor}`));
          assert.equal(seen.length, new Set(seen).size, 'no listing twice');
          assert.deepEqual([...seen].sort(), [...whole].sort());
        } finally {
          await set('window', window);
        }
      });
    });
  }

  it("explain=1 with semantic retrieval on: the plain search's listings, in its order, with its scores", async () => {
    for (const share of [shippedShare, '0.05']) {
      await set('semantic.preFilterMaxShare', share);
      try {
        for (const [q, filters] of [[MEANING_ONLY, '&type=http'], [MEANING_ONLY, '&type=mcp'], ['weather forecast for a city', ''], ['licence plate weather', '&maxPrice=10000']] as const) {
          const context = `${q}${filters} (preFilterMaxShare ${share})`;
          const explained = await search(q, `${filters}&explain=1&limit=50`);
          assert.deepEqual(explained.map((r) => r.id), (await search(q, `${filters}&limit=50`)).map((r) => r.id), context);
          // The plain search as the service sends it (the kNN clause inside), straight to Elasticsearch: explain changes no score.
          const plain = parseReadRequest('search', { ...Object.fromEntries(new URLSearchParams(filters)), q, limit: '50' });
          const { body } = await h.container.search.search.buildRequest(plain);
          assert.match(JSON.stringify(body), /"knn":/, context);
          const direct = await h.elasticsearch.search({ index: h.config.listingsAlias, ...body } as never);
          const scores = new Map(direct.hits.hits.map((hit) => [hit._id, hit._score as number]));
          const byName = await relevanceByName(h, plain);
          for (const r of explained) {
            const relevance = byName.get(r.id);
            assert.ok(relevance !== undefined && Math.abs(r.debug!.relevance - relevance) <= 1e-4 * relevance, `${context}: ${names([r])} relevance ${r.debug!.relevance} vs ${relevance} by name`);
            const score = scores.get(r.id);
            assert.ok(score !== undefined && Math.abs(r.debug!.score - score) <= 1e-4 * score, `${context}: ${names([r])} ${r.debug!.score} vs ${score}`);
            assertExplainMultiplies(r.debug, context);
          }
        }
      } finally {
        await set('semantic.preFilterMaxShare', shippedShare);
      }
    }
  });

  it('the same first page whether the filter is applied inside the kNN search or after it (a small catalog: every neighbour found either way)', async () => {
    try {
      await set('semantic.preFilterMaxShare', '1');
      const inside = (await search(MEANING_ONLY, '&type=http&limit=10')).map((r) => r.id);
      await set('semantic.preFilterMaxShare', '0.05');
      assert.deepEqual((await search(MEANING_ONLY, '&type=http&limit=10')).map((r) => r.id), inside);
    } finally {
      await set('semantic.preFilterMaxShare', shippedShare);
    }
  });
});
