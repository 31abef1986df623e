/**
 * The product's one door for its lab (lab/: benchmarks, tuning, soak, fuzz and chaos tools): what
 * they may use of the service, and nothing else (the lint holds lab/ to this file). Each group
 * says why the lab needs it; a tool that needs more adds it here, where a reviewer sees it.
 */

// The service: configuration, logging, the container and the app (a gateway in process).
export { loadConfig, type Config } from './config/index.js';
export { EMBEDDING_MODEL_NAMES } from './config/embeddingModels.js';
export { createLogger } from './logger.js';
export { buildContainer, type Container } from './container.js';
export { createApp } from './app.js';
export { fail, loadConfigOrFail, numberOption, parseCommandLine, runMain } from './cli/options.js';

// Deployment data: clients, the listing index, a catalog session, dropping a scratch deployment.
export { createElasticsearchClient, elasticsearchNodeUrls, type ElasticsearchClient } from './store/elasticsearch/client.js';
export { createRedisClient, dropRedisPrefix, type RedisClient } from './store/redis/client.js';
export { storesFor } from './store/stores.js';
export { dropDeploymentIndices, ensureListingIndex, loadIndexDefinition, type IndexDefinition } from './store/elasticsearch/listingIndex.js';
export { dropDeploymentData } from './store/deploymentData.js';
export { WriteStream, dropCatalogKeys } from './store/redis/writeStream.js';
export { redisKeys } from './store/redis/redisKeys.js';
export { benchmarkEnv, drainQueue, openCatalogSession, type CatalogSession } from './cli/catalogSession.js';
export { importListings, parseListingFile, type ParsedEntry } from './catalog/transfer.js';
export { checkListingInput, validateListingInput } from './catalog/validation.js';
export { buildListingDocument } from './catalog/document.js';
export { canonicalIdentity, httpListingId } from './catalog/identity.js';
export { toListing } from './catalog/listing.js';
export { type ListingDocument } from './store/listingDocument.js';
export { type Listing } from './shapes/listing.js';
export { type ListingInput, type McpListingInput } from './shapes/listingInput.js';
export { ChangeLog } from './store/redis/changeLog.js';
export { ProbeStore } from './store/redis/probeStore.js';
export { SellerTokenRecords } from './store/redis/sellerTokens.js';
export { SellerTokenStore } from './publish/sellerTokens.js';
export { StalenessWorker } from './staleness/stalenessWorker.js';
export { ElasticsearchStaleListingFinder } from './store/elasticsearch/staleListings.js';

// Planning a read: the request grammar, the read service that plans (CatalogSearch.plan), the plan
// re-made with other tunables and its body, the ranking settings the tuning tools vary.
export { parseReadRequest } from './search/readGrammar.js';
export { type ReadEndpoint, type ReadRequest } from './search/readRequest.js';
export { buildCatalogSearch } from './search/index.js';
export { planRead, type PlanContext, type ReadPlan } from './search/readPlan.js';
export { pageBody } from './search/queryBuilder.js';
export { SEMANTIC_FUSIONS, shippedRanking, textFieldsOf, validateRanking, type RankingSettings } from './search/rankingSettings.js';
export { setRanking } from './search/rankingCommand.js';
export { RankingTunablesIndex } from './store/elasticsearch/rankingTunables.js';
export { searchBodyJson } from './store/elasticsearch/listingSearch.js';

// Meaning: the embedding model, listing texts and stored vectors.
export { buildEmbeddingWorker } from './semantic/index.js';
export { embeddedTextHash, listingText } from './semantic/listingText.js';
export { OtherModelVectors } from './semantic/otherModelVectors.js';
export { QueryEmbeddings, type QueryVector } from './semantic/queryEmbeddings.js';
export { OnnxEmbedder, sharedEmbedder, type Embedder } from './semantic/textEmbedder.js';
export { vectorDigits } from './core/vectorDigits.js';
export { storedVector, storedVectorFields } from './store/elasticsearch/storedVector.js';
export { EMBEDDED_TEXT_FIELDS, ListingEmbeddingStore, type EmbeddedFields } from './store/elasticsearch/listingEmbeddings.js';

// Payments: what the facilitator benchmark signs with.
export { TRANSFER_WITH_AUTHORIZATION_TYPES, tokenDomain } from './facilitator/exactScheme.js';
export { recoverTypedDataSignerUncached } from './facilitator/recoverSigner.js';

// Task queries (issue 45): the need split the read uses (the model choice on task queries), and
// the outcome import the task benchmark loads the history split with (as npm run import:outcomes).
export { splitNeeds } from './search/taskNeeds.js';
export { openOutcomeImport } from './cli/outcomeImport.js';
export { type OutcomeImportResult } from './outcomes/index.js';
