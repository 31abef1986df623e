/**
 * Listing lifecycle (docs/lifecycle.md): the change feed for mirrors and listing history. Built
 * before the catalog, because the catalog's ingest consumer reports the writes it applied to
 * `observer`.
 */
import type { Clients } from '../core/clients.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AppliedWrite, AppliedWritesObserver } from '../store/catalogOperations.js';
import type { CatalogReader } from '../catalog/reader.js';
import { cursorSecretProvider } from '../store/redis/cursorSecret.js';
import { ChangeLog } from '../store/redis/changeLog.js';
import { HistoryLog } from '../store/redis/historyLog.js';
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
export function appliedWritesRecorder(config: Pick<Config, 'redisPrefix'>, redis: Clients['redis']): AppliedWritesObserver {
  const log = new ChangeLog(redis, config.redisPrefix);
  const history = new ListingHistory(new HistoryLog(redis, config.redisPrefix, HISTORY_MAX_LIMIT));
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
export async function markFeedCompleteForNewIndex(config: Pick<Config, 'redisPrefix'>, redis: Clients['redis'], now = new Date()): Promise<void> {
  await new ChangeLog(redis, config.redisPrefix).markSeeded(now);
}

export function buildLifecycle(config: Config, logger: Logger, clients: Clients): Lifecycle {
  const log = new ChangeLog(clients.redis, config.redisPrefix);
  const history = new ListingHistory(new HistoryLog(clients.redis, config.redisPrefix, HISTORY_MAX_LIMIT));
  const observer = appliedWritesRecorder(config, clients.redis);
  const secret = cursorSecretProvider({ configured: config.cursorSecret, redis: clients.redis, redisPrefix: config.redisPrefix, logger });
  return {
    observer,
    seeder: new ChangeFeedSeeder(log, clients.elasticsearch, config.listingsAlias, logger),
    attach(reader) {
      const feed = new ChangeFeed(log, reader, new ChangeTokenCodec(secret));
      const historyReader = new HistoryReader(history, reader);
      return { feed, history: historyReader };
    },
  };
}
