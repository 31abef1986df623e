/**
 * The catalog read side, assembled: the search service, the ranking-tunables cache (a background
 * worker that re-reads the index) and the cursor codec.
 */
import type { Clients } from '../core/clients.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { CatalogSearch } from './catalogSearch.js';
import { CursorCodec } from './cursor.js';
import { cursorSecretProvider } from '../store/redis/cursorSecret.js';
import { RankingCache } from './rankingCache.js';
import { RankingTunablesIndex } from '../store/elasticsearch/rankingTunables.js';
import { ListingSearchIndex } from '../store/elasticsearch/listingSearch.js';
import { ListingVocabulary } from '../store/elasticsearch/listingVocabulary.js';
import { TypoPass } from './typoPass.js';
import type { Clock } from '../core/clock.js';
import { QueryEmbeddings } from '../semantic/queryEmbeddings.js';
import { sharedEmbedder } from '../semantic/textEmbedder.js';

export interface CatalogReadSide {
  search: CatalogSearch;
  ranking: RankingCache;
}

export function buildCatalogSearch(config: Config, logger: Logger, clients: Clients, options: { now?: Clock } = {}): CatalogReadSide {
  const ranking = new RankingCache(new RankingTunablesIndex(clients.elasticsearch, config.listingsAlias), config.rankingRefreshMs, logger);
  const secret = cursorSecretProvider({ configured: config.cursorSecret, redis: clients.redis, redisPrefix: config.redisPrefix, logger });
  const search = new CatalogSearch({
    index: new ListingSearchIndex(clients.elasticsearch, config.listingsAlias),
    ranking,
    cursors: new CursorCodec(secret),
    queryEmbeddings: new QueryEmbeddings(sharedEmbedder(config.embeddingModelDir, logger)),
    typoPass: new TypoPass(new ListingVocabulary(clients.elasticsearch, config.listingsAlias)),
    ...(options.now ? { now: options.now } : {}),
  });
  return { search, ranking };
}
