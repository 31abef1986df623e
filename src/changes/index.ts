/**
 * The change feed for mirrors and listing history (docs/changes.md), as the container wires it. Built
 * before the catalog, because the catalog's ingest consumer reports the writes it applied to
 * `observer`.
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { AppliedWritesObserver } from '../store/catalogOperations.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { Stores } from '../store/stores.js';
import { ChangeFeed } from './changeFeed.js';
import { changeRecorder } from './changeRecorder.js';
import { ChangeTokenCodec } from './changeToken.js';
import { HISTORY_MAX_LIMIT } from './feedRequest.js';
import { ChangeFeedSeeder } from './feedSeeder.js';
import { ListingHistory } from './history.js';
import { HistoryReader } from './historyReader.js';

export { changeRecorder, markFeedCompleteForNewIndex } from './changeRecorder.js';

export interface Changes {
  observer: AppliedWritesObserver;
  /** Needs the catalog reader, which exists only once the catalog is built with `observer`. */
  attach(reader: CatalogReader): { feed: ChangeFeed; history: HistoryReader };
  seeder: ChangeFeedSeeder;
}

export function buildChanges(config: Config, logger: Logger, stores: Stores): Changes {
  const log = stores.redis.changeLog();
  const history = new ListingHistory(stores.redis.historyLog(HISTORY_MAX_LIMIT));
  const observer = changeRecorder(stores.redis);
  const secret = stores.redis.cursorSecret(config.cursorSecret, logger);
  return {
    observer,
    seeder: new ChangeFeedSeeder(log, stores.elasticsearch, logger),
    attach(reader) {
      const feed = new ChangeFeed(log, reader, new ChangeTokenCodec(secret));
      const historyReader = new HistoryReader(history, reader);
      return { feed, history: historyReader };
    },
  };
}
