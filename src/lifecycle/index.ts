/**
 * Listing lifecycle (docs/lifecycle.md): the change feed for mirrors and listing history. Built
 * before the catalog, because the catalog's ingest consumer reports the writes it applied to
 * `observer`.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AppliedWrite, AppliedWritesObserver } from '../store/catalogOperations.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { RedisStores } from '../store/redis/redisStores.js';
import type { Stores } from '../store/stores.js';
import { ChangeFeed, feedRelevant } from './changeFeed.js';
import { ChangeTokenCodec } from './changeToken.js';
import { HISTORY_MAX_LIMIT } from './feedRequest.js';
import { ChangeFeedSeeder } from './feedSeeder.js';
import { ListingHistory } from './history.js';
import { HistoryReader } from './historyReader.js';

export interface Lifecycle {
  observer: AppliedWritesObserver;
  /** Needs the catalog reader, which exists only once the catalog is built with `observer`. */
  attach(reader: CatalogReader): { feed: ChangeFeed; history: HistoryReader };
  seeder: ChangeFeedSeeder;
}

/**
 * What every ingest consumer reports its applied writes to (the server's and those of import and
 * the demo loader, scripts/lib/catalogSession.ts): listing history and the change log.
 */
export function appliedWritesRecorder(redis: RedisStores): AppliedWritesObserver {
  const log = redis.changeLog();
  const history = new ListingHistory(redis.historyLog(HISTORY_MAX_LIMIT));
  return {
    async applied(writes: AppliedWrite[]) {
      // Independent: both only have to be done before the writes are acknowledged.
      await Promise.all([history.record(writes), log.append(feedRelevant(writes.map((w) => w.operation)))]);
    },
  };
}

/**
 * For a listing index that was just created: it holds nothing the change feed has not seen, since
 * every write from now on is logged as it is applied, so the feed needs no seeding. Without this a
 * catalog that import or a loader put into a new deployment before the first server start was
 * read whole by every gateway's seeder at its start.
 */
export async function markFeedCompleteForNewIndex(redis: RedisStores, now = new Date()): Promise<void> {
  await redis.changeLog().markSeeded(now);
}

export function buildLifecycle(config: Config, logger: Logger, stores: Stores): Lifecycle {
  const log = stores.redis.changeLog();
  const history = new ListingHistory(stores.redis.historyLog(HISTORY_MAX_LIMIT));
  const observer = appliedWritesRecorder(stores.redis);
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
