import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODEL_NAMES, EMBEDDING_MODELS } from '../src/config/embeddingModels.js';

/**
 * The embedding-model table (src/config/embeddingModels.json) is read by the service and by
 * scripts/services.sh: both must put a model in the same place. Runs the script (no Elasticsearch
 * or Redis needed, but a bash and a node process per check: kept out of the unit tests).
 */
describe('scripts/services.sh and the service agree on the embedding model', () => {
  const modelFile = (env: Record<string, string>) =>
    execFileSync('bash', ['scripts/services.sh', 'model-file'], { env: { ...process.env, CACHE_DIR: '', EMBEDDING_MODEL_DIR: '', ...env }, encoding: 'utf8' }).trim();

  it('services.sh fetches each model where the service looks for it', () => {
    for (const name of EMBEDDING_MODEL_NAMES) {
      const config = loadConfig({ EMBEDDING_MODEL: name });
      assert.equal(modelFile({ EMBEDDING_MODEL: name }), resolve(config.embeddingModelDir, EMBEDDING_MODELS[name]!.modelFile));
    }
    assert.equal(modelFile({}), resolve(loadConfig({}).embeddingModelDir, EMBEDDING_MODELS[DEFAULT_EMBEDDING_MODEL]!.modelFile));
    assert.equal(modelFile({ EMBEDDING_MODEL: 'e5-small-v2-q', EMBEDDING_MODEL_DIR: '/opt/m' }), '/opt/m/e5-small-v2-q.onnx');
  });

  it('an unknown model stops services.sh too', () => {
    assert.throws(() => execFileSync('bash', ['scripts/services.sh', 'model-file'], { env: { ...process.env, EMBEDDING_MODEL: 'gpt-embeddings' }, stdio: 'pipe' }));
  });
});
