/**
 * The semantic module as the container wires it: the embedding worker that gives stored listings
 * their vectors (the query side, QueryEmbeddings, is built by src/search).
 */
import type { Clients } from '../core/clients.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { ListingEmbeddingStore } from '../store/elasticsearch/listingEmbeddings.js';
import { EmbeddingWorker } from './embeddingWorker.js';
import { sharedEmbedder, type Embedder } from './textEmbedder.js';

export function buildEmbeddingWorker(config: Config, logger: Logger, clients: Clients, embedder?: Embedder): EmbeddingWorker {
  const store = new ListingEmbeddingStore(clients.elasticsearch, config.listingsAlias);
  return new EmbeddingWorker(store, embedder ?? sharedEmbedder(config.embeddingModelDir, logger), logger, config.embedding);
}

export { EmbeddingWorker } from './embeddingWorker.js';
