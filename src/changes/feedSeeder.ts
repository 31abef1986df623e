/**
 * One-time seeding of the change log from an index that was filled before the feed existed, so a
 * mirror replaying from the beginning gets those listings too. Runs once per deployment at start
 * (a marker key in Redis says it is done); it only adds listings never logged, so it is harmless
 * beside the ingest consumer (a listing logged meanwhile keeps its entry; one seeded and then
 * changed gets a newer entry, and a page always reads the current document anyway).
 */
import type { BackgroundWorker } from '../core/worker.js';
import type { Logger } from '../logger.js';
import type { ChangeLog } from '../store/redis/changeLog.js';

/** The listing index's side (store/elasticsearch/elasticsearchStores.ts): every live id, in pages. */
export interface LiveListingIds {
  liveListingIds(): AsyncIterable<string[]>;
}

export class ChangeFeedSeeder implements BackgroundWorker {
  readonly name = 'change-feed-seeder';
  private running?: Promise<void>;
  private stopping = false;

  constructor(
    private readonly log: ChangeLog,
    private readonly listings: LiveListingIds,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopping = false;
    this.running ??= this.seed().then(
      () => undefined,
      (err: Error) => {
        // Tried again at the next start; the feed still serves everything logged since.
        this.logger.warn('change feed: seeding from the index failed', { error: err.message });
      },
    );
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
    this.running = undefined;
  }

  /** Logs every live listing not logged yet; returns how many were added. */
  async seed(): Promise<number> {
    if (await this.log.isSeeded()) return 0;
    const startedAt = new Date();
    let added = 0;
    for await (const ids of this.listings.liveListingIds()) {
      if (this.stopping) return added;
      added += await this.log.append(ids, { onlyNew: true });
    }
    await this.log.markSeeded(startedAt);
    if (added > 0) this.logger.info('change feed: seeded from the index', { listings: added });
    return added;
  }
}
