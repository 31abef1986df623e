import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODEL_NAMES, EMBEDDING_MODELS, prefixed } from '../../src/semantic/embeddingModels.js';

/**
 * The embedding-model table (src/semantic/embeddingModels.json) is read by the service and by
 * scripts/services.sh: both must put a model in the same place, and a name the table does not know
 * must stop the service at startup rather than turn semantic retrieval off silently.
 */
describe('unit: the embedding models a deployment can choose', () => {
  const modelFile = (env: Record<string, string>) =>
    execFileSync('bash', ['scripts/services.sh', 'model-file'], { env: { ...process.env, CACHE_DIR: '', EMBEDDING_MODEL_DIR: '', ...env }, encoding: 'utf8' }).trim();

  it('services.sh fetches each model where the service looks for it', () => {
    for (const name of EMBEDDING_MODEL_NAMES) {
      const config = loadConfig({ EMBEDDING_MODEL: name });
      assert.equal(config.embeddingModel, name);
      assert.equal(modelFile({ EMBEDDING_MODEL: name }), resolve(config.embeddingModelDir, EMBEDDING_MODELS[name]!.modelFile));
    }
    assert.equal(loadConfig({}).embeddingModel, DEFAULT_EMBEDDING_MODEL);
    assert.equal(modelFile({}), resolve(loadConfig({}).embeddingModelDir, EMBEDDING_MODELS[DEFAULT_EMBEDDING_MODEL]!.modelFile));
    assert.equal(modelFile({ EMBEDDING_MODEL: 'e5-small-v2-q', EMBEDDING_MODEL_DIR: '/opt/m' }), '/opt/m/e5-small-v2-q.onnx');
  });

  it('an unknown model is a configuration error, for the service and for services.sh', () => {
    assert.throws(() => loadConfig({ EMBEDDING_MODEL: 'gpt-embeddings' }), (err: unknown) => err instanceof ConfigError && /EMBEDDING_MODEL.*all-minilm-l6-v2-q/.test(err.message));
    assert.throws(() => execFileSync('bash', ['scripts/services.sh', 'model-file'], { env: { ...process.env, EMBEDDING_MODEL: 'gpt-embeddings' }, stdio: 'pipe' }));
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
