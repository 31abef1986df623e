import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { pageBody } from '../../src/search/queryBuilder.js';
import { planRead } from '../../src/search/readPlan.js';
import { shippedRanking } from '../../src/search/rankingSettings.js';
import { parseReadRequest } from '../../src/search/readGrammar.js';
import { DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODEL_NAMES, EMBEDDING_MODELS, prefixed } from '../../src/config/embeddingModels.js';
import { OtherModelVectors } from '../../src/semantic/otherModelVectors.js';

/**
 * The embedding-model table (src/config/embeddingModels.json): a name the table does not know
 * must stop the service at startup rather than turn semantic retrieval off silently. That
 * scripts/services.sh puts each model where the service looks is test/services-script.test.ts
 * (it runs the script: a process per check, too slow for the unit loop).
 */
describe('unit: the embedding models a deployment can choose', () => {
  it('the service reads each model of the table, and refuses a name it does not know at startup', () => {
    for (const name of EMBEDDING_MODEL_NAMES) assert.equal(loadConfig({ EMBEDDING_MODEL: name }).embeddingModel, name);
    assert.equal(loadConfig({}).embeddingModel, DEFAULT_EMBEDDING_MODEL);
    assert.throws(() => loadConfig({ EMBEDDING_MODEL: 'gpt-embeddings' }), (err: unknown) => err instanceof ConfigError && /EMBEDDING_MODEL.*all-minilm-l6-v2-q/.test(err.message));
  });

  it('queries and listing texts carry the prefixes each model was trained with', () => {
    const e5 = EMBEDDING_MODELS['e5-small-v2-q']!;
    assert.equal(prefixed(e5, 'query', 'speech to text'), 'query: speech to text');
    assert.equal(prefixed(e5, 'passage', 'Transcribes audio.'), 'passage: Transcribes audio.');
    const bge = EMBEDDING_MODELS['bge-small-en-v15-q']!;
    assert.match(prefixed(bge, 'query', 'speech to text'), /^Represent this sentence for searching relevant passages: speech to text$/);
    assert.equal(prefixed(bge, 'passage', 'Transcribes audio.'), 'Transcribes audio.');
    assert.equal(prefixed(EMBEDDING_MODELS['all-minilm-l6-v2-q']!, 'query', 'speech to text'), 'speech to text');
  });
});

describe('unit: the kNN search filters on the query model only while other models are stored', () => {
  const knnFilter = (otherModelsStored: boolean) => {
    const settings = { ...shippedRanking(), semantic: { ...shippedRanking().semantic, weight: 40 } };
    const vector = { model: 'e5-small-v2-q', values: [1, 0], otherModelsStored };
    const body = pageBody(planRead(parseReadRequest('search', { q: 'weather', type: 'mcp' }), { settings, tunables: 0, now: 0, parts: [{ q: 'weather', vector }] }));
    const knn = /"knn":(\{.*?"filter":(\[.*?\])\})/.exec(JSON.stringify(body));
    return JSON.parse(knn![2]!) as object[];
  };

  it('adds the model term while other vectors are stored, and nothing else (the read filters stay as they are)', () => {
    const plain = knnFilter(false);
    assert.ok(!JSON.stringify(plain).includes('embeddingModel'));
    assert.deepEqual(knnFilter(true), [...plain, { term: { embeddingModel: 'e5-small-v2-q' } }]);
  });

  it('asks the index at most every refresh period, answers yes until it knows and when the question fails', async () => {
    let now = 0;
    const answers: Array<boolean | Error> = [false, new Error('unavailable'), false];
    let asked = 0;
    const others = new OtherModelVectors(
      { otherModelsStored: async () => { const a = answers[asked++]!; if (a instanceof Error) throw a; return a; } },
      'all-minilm-l6-v2-q', 5000, () => now,
    );
    assert.equal(await others.stored(), false, 'the first answer is awaited');
    now = 4999;
    assert.equal(await others.stored(), false);
    assert.equal(asked, 1, 'asked again within the refresh period');
    now = 5000;
    assert.equal(await others.stored(), false, 'the last answer, while a new one is fetched');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await others.stored(), true, 'a failed question is taken as yes');
    assert.equal(asked, 2);
  });
});
