/**
 * The outcome import of `npm run import:outcomes` (scripts/import-outcomes.ts) and of the lab's
 * task benchmark, over a catalog session: the service's model embeds the searches, the catalog
 * resolves the resources.
 */
import { buildOutcomes, importOutcomes, type OutcomeImportResult } from '../outcomes/index.js';
import { QueryEmbeddings } from '../semantic/queryEmbeddings.js';
import { sharedEmbedder } from '../semantic/textEmbedder.js';
import { storesFor } from '../store/stores.js';
import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { ElasticsearchClient } from '../store/elasticsearch/client.js';
import type { RedisClient } from '../store/redis/client.js';

export function openOutcomeImport(session: { config: Config; logger: Logger; elasticsearch: ElasticsearchClient; redis: RedisClient }): { run(text: string, file: string): Promise<OutcomeImportResult> } {
  const stores = storesFor({ elasticsearch: session.elasticsearch, redis: session.redis }, session.config);
  const outcomes = buildOutcomes(stores, new QueryEmbeddings(sharedEmbedder(session.config, session.logger)), { windowMs: session.config.outcomeWindowMs, clock: Date.now, logger: session.logger });
  const index = stores.elasticsearch.search();
  return { run: (text, file) => importOutcomes(text, file, { recorder: outcomes.recorder, listings: (resources) => index.byResources(resources) }) };
}
