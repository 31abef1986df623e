import assert from 'node:assert/strict';
import { storedVector } from '../src/store/elasticsearch/storedVector.js';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness.js';
import { httpListing, seed, waitSearchable } from './support/discoveryFixtures.js';
import { setRanking } from '../src/search/rankingCommand.js';
import { RankingTunablesIndex } from '../src/store/elasticsearch/rankingTunables.js';
import { parseReadRequest } from '../src/search/readGrammar.js';

interface Result {
  id: string;
  debug?: { score: number; relevance: number; priceBoost: number; recencyBoost: number; healthBoost: number };
}

/**
 * Semantic retrieval (README "Semantic retrieval"): a buyer who describes what they need in words
 * no listing uses still finds it, through the listing embeddings the embedding worker stores.
 */
describe('semantic retrieval finds listings by meaning', () => {
  let h: Harness;
  const id: Record<string, string> = {};
  const search = async (q: string, extra = ''): Promise<Result[]> =>
    (await request(h.app).get(`/discovery/search?q=${encodeURIComponent(q)}${extra}`).expect(200)).body.results;
  const semanticWeight = async (weight: number) => {
    await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'semantic.weight', String(weight));
    await h.container.search.ranking.refresh();
  };

  before(async () => {
    h = await startHarness({ EMBEDDING_IDLE_MS: '100' });
    const specs = {
      transcription: httpListing({
        path: 'stt', title: 'Speech transcription', description: 'Transcribes recorded meetings and calls, with timestamps and speaker labels.', tags: ['transcription', 'stt'],
      }),
      weather: httpListing({ path: 'wx', title: 'Weather forecast', description: 'Hourly and daily forecasts for any city.', tags: ['weather'] }),
      images: httpListing({ path: 'img', title: 'Image resize', description: 'Resizes and crops pictures to any size.', tags: ['images'] }),
    };
    const ids = await seed(h, Object.values(specs));
    Object.keys(specs).forEach((key, i) => (id[key] = ids[i]!));
  });
  after(async () => h.close());

  it('the embedding worker gives every listing an embedding (the model is installed: npm run services)', async () => {
    // waitSearchable fails after 15 s: no embeddings means no model under .cache/models (scripts/services.sh model).
    await waitSearchable(h, Object.values(id), { exists: { field: 'embeddedTextHash' } });
    const { count } = await h.elasticsearch.count({ index: h.config.listingsAlias, query: { exists: { field: 'embedding' } } });
    assert.equal(count, 3);
    // Stored packed, out of the JSON that every search hit's fetch reads (src/store/elasticsearch/storedVector.ts).
    const stored = await h.elasticsearch.get<Record<string, unknown>>({ index: h.config.listingsAlias, id: id.weather! });
    assert.equal(stored._source!.embedding, undefined);
    const vector = storedVector(stored._source)!;
    assert.equal(vector.length, 384);
    assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-3, 'not a unit vector');
  });

  it('a query with none of the listing words finds it with semantic retrieval on, and not with it off', async () => {
    const q = 'convert spoken audio into written words';
    await semanticWeight(0);
    assert.ok(!(await search(q)).some((r) => r.id === id.transcription), 'text relevance alone cannot match it');
    await semanticWeight(5);
    const results = await search(q, '&explain=1');
    assert.equal(results[0]?.id, id.transcription, JSON.stringify(results));
    // explain still multiplies exactly: the kNN score is part of the relevance factor.
    for (const r of results) {
      const d = r.debug!;
      assert.ok(Math.abs(d.relevance * d.priceBoost * d.recencyBoost * d.healthBoost - d.score) < 1e-4, JSON.stringify(d));
    }
  });

  it('a misspelled query is searched by the meaning of its catalog spelling; English words no listing has are kept', async () => {
    await semanticWeight(5);
    const spelling = async (value: 'typed' | 'catalog') => {
      await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'typos.spelling', value);
      await h.container.search.ranking.refresh();
    };
    // The query vector the search sends (the kNN clause's), as JSON.
    const vectorOf = async (q: string) => {
      const { body } = await h.container.search.search.buildRequest(parseReadRequest('search', { q }));
      const found = /"query_vector":(\[[^\]]*\])/.exec(JSON.stringify(body));
      assert.ok(found, `no kNN clause for ${q}`);
      return found[1];
    };
    await spelling('typed');
    const meant = await vectorOf('speech transcription');
    const typedMisspelled = await vectorOf('speach transcripton');
    const typedStadium = await vectorOf('transcription at the stadium');
    assert.notEqual(typedMisspelled, meant);
    await spelling('catalog');
    assert.equal(await vectorOf('speach transcripton'), meant, 'read as "speech transcription"');
    // "stadium" is in no listing, but it is a word: the buyer meant it.
    assert.equal(await vectorOf('transcription at the stadium'), typedStadium);
    const results = await search('speach transcripton');
    assert.equal(results[0]?.id, id.transcription);
  });

  it('an unrelated query does not drag in the nearest listings anyway, and filters still apply', async () => {
    await semanticWeight(5);
    assert.deepEqual(await search('zqxv blorf'), []);
    assert.deepEqual(await search('convert spoken audio into written words', '&type=mcp'), []);
  });
});

describe('search without the embedding model', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ EMBEDDING_MODEL_DIR: '/nonexistent/embedding-model' });
  });
  after(async () => h.close());

  it('still stores listings and answers on text relevance alone (semantic retrieval off)', async () => {
    const [weather] = await seed(h, [httpListing({ path: 'wx2', title: 'Weather forecast', description: 'Daily forecasts.', tags: ['weather'] })]);
    await setRanking(new RankingTunablesIndex(h.elasticsearch, h.config.listingsAlias), 'semantic.weight', '5');
    await h.container.search.ranking.refresh();
    const results = (await request(h.app).get('/discovery/search?q=weather').expect(200)).body.results as Result[];
    assert.equal(results[0]?.id, weather);
    // The embedding worker has nothing to run: no vector, and the listing stays found by its words.
    assert.equal(await h.container.embeddings.catchUp(), 0);
    const { count } = await h.elasticsearch.count({ index: h.config.listingsAlias, query: { exists: { field: 'embeddedTextHash' } } });
    assert.equal(count, 0);
  });
});
