/**
 * The catalog read side, assembled: the search service, the ranking-tunables cache (a background
 * worker that re-reads the index) and the cursor codec.
 */
import type { Clients } from '../container.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { CatalogSearch } from './catalogSearch.js';
import { CursorCodec } from './cursor.js';
import { cursorSecretProvider } from './cursorSecret.js';
import { RankingCache } from './rankingCache.js';
import { QueryEmbeddings } from '../semantic/queryEmbeddings.js';
import { sharedEmbedder } from '../semantic/textEmbedder.js';

export interface CatalogReadSide {
  search: CatalogSearch;
  ranking: RankingCache;
}

export function buildCatalogSearch(config: Config, logger: Logger, clients: Clients, options: { now?: () => number } = {}): CatalogReadSide {
  const ranking = new RankingCache(clients.elasticsearch, config.listingsAlias, config.rankingRefreshMs, logger);
  const secret = cursorSecretProvider({ configured: config.cursorSecret, redis: clients.redis, redisPrefix: config.redisPrefix, logger });
  const search = new CatalogSearch({
    elasticsearch: clients.elasticsearch,
    alias: config.listingsAlias,
    ranking,
    cursors: new CursorCodec(secret),
    queryEmbeddings: new QueryEmbeddings(sharedEmbedder(config.embeddingModelDir, logger)),
    ...(options.now ? { now: options.now } : {}),
  });
  return { search, ranking };
}
