/**
 * The semantic module as the container wires it: the embedding worker that gives stored listings
 * their vectors (the query side, QueryEmbeddings, is built by src/search).
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { Stores } from '../store/stores.js';
import { EmbeddingWorker } from './embeddingWorker.js';
import { sharedEmbedder, type Embedder } from './textEmbedder.js';

export function buildEmbeddingWorker(config: Config, logger: Logger, stores: Stores, embedder?: Embedder): EmbeddingWorker {
  const store = stores.elasticsearch.embeddings();
  return new EmbeddingWorker(store, embedder ?? sharedEmbedder(config, logger), logger, config.embedding);
}

export { EmbeddingWorker } from './embeddingWorker.js';
