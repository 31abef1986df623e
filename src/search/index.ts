/**
 * The catalog read side, assembled: the search service, the ranking-tunables cache (a background
 * worker that re-reads the index) and the cursor codec.
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { CatalogSearch } from './catalogSearch.js';
import { TaskSearch } from './taskSearch.js';
import { SignedTokenCodec } from '../core/signedToken.js';
import { buildOutcomes, type Outcomes } from '../outcomes/index.js';
import { MerchantView } from './merchantView.js';
import { CursorCodec } from './cursor.js';
import { RankingCache } from './rankingCache.js';
import type { Stores } from '../store/stores.js';
import { TypoPass } from './typoPass.js';
import { englishWords } from './englishWords.js';
import { FilterShare } from './filterShare.js';
import { ReadCache, type CacheOutcome } from './readCache.js';
import type { Clock } from '../core/clock.js';
import { QueryEmbeddings } from '../semantic/queryEmbeddings.js';
import { OtherModelVectors } from '../semantic/otherModelVectors.js';
import { sharedEmbedder } from '../semantic/textEmbedder.js';

export interface CatalogReadSide {
  search: CatalogSearch;
  /** One payTo's listings and their aggregates (GET /discovery/merchant, get_merchant). */
  merchants: MerchantView;
  ranking: RankingCache;
  /** Paid outcomes: the recorder the facilitator links settlements with, and the ranking's lifts. */
  outcomes: Outcomes;
}

export function buildCatalogSearch(config: Config, logger: Logger, stores: Stores, options: { now?: Clock; onCacheOutcome?: (outcome: CacheOutcome) => void } = {}): CatalogReadSide {
  const ranking = new RankingCache(stores.elasticsearch.rankingTunables(), config.rankingRefreshMs, logger);
  const secret = stores.redis.cursorSecret(config.cursorSecret, logger);
  const index = stores.elasticsearch.search();
  const queryEmbeddings = new QueryEmbeddings(sharedEmbedder(config, logger), new OtherModelVectors(stores.elasticsearch.embeddings(), config.embeddingModel));
  const outcomes = buildOutcomes(stores, queryEmbeddings, { windowMs: config.outcomeWindowMs, clock: options.now ?? Date.now, logger });
  const search = new TaskSearch({
    index,
    ranking,
    cursors: new CursorCodec(secret),
    taskCursors: new SignedTokenCodec(secret, { maxBodyChars: 8192 }),
    outcomes,
    logger,
    queryEmbeddings,
    typoPass: new TypoPass(stores.elasticsearch.vocabulary(), englishWords()),
    filterShare: new FilterShare(index, options.now),
    cache: new ReadCache(config.readCacheMs, config.readCacheEntries),
    ...(options.onCacheOutcome ? { onCacheOutcome: options.onCacheOutcome } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  return { search, ranking, outcomes, merchants: new MerchantView(search, stores.elasticsearch.merchantSummaries()) };
}
