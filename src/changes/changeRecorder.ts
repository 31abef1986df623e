/**
 * Where the change feed's entries and listing history are recorded: the catalog's write consumer
 * (the server's, and those of import and the demo loader) reports every write it applied, before
 * acknowledging it, to this observer.
 */
import type { AppliedWrite, AppliedWritesObserver } from '../store/catalogOperations.js';
import type { RedisStores } from '../store/redis/redisStores.js';
import { feedRelevant } from './changeFeed.js';
import { HISTORY_MAX_LIMIT } from './feedRequest.js';
import { ListingHistory } from './history.js';

/**
 * What every ingest consumer reports its applied writes to (the server's and those of import and
 * the demo loader, src/cli/catalogSession.ts): listing history and the change log.
 */
export function changeRecorder(redis: RedisStores): AppliedWritesObserver {
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
