/**
 * Puts the listing index back when it disappears at run time (deleted, or a fresh Elasticsearch
 * node on the same URL): checks the alias every few seconds, and at once when the ingest consumer
 * meets `index_not_found`, and re-creates the index with its mapping and the alias. Until then reads
 * answer 503 search_unavailable and /readyz names the index (docs/catalog-write.md "Losing the index").
 */
import type { BackgroundWorker, PassLease } from '../core/worker.js';
import type { Logger } from '../logger.js';
import { PeriodicTask } from '../core/worker.js';
import type { ListingIndexGuard } from '../store/elasticsearch/listingIndex.js';

export const CHECK_INTERVAL_MS = 5000;

export class IndexKeeper implements BackgroundWorker {
  readonly name = 'listing-index-keeper';
  private readonly task: PeriodicTask;
  private repairing: Promise<void> | undefined;

  constructor(
    private readonly listingIndex: ListingIndexGuard,
    private readonly logger: Logger,
    /** With several instances, one checks the alias per period; any of them still repairs at once on demand. */
    lease?: PassLease,
  ) {
    this.task = new PeriodicTask(() => this.check(), CHECK_INTERVAL_MS, (err) =>
      this.logger.warn('listing index check failed', { err: (err as Error).message }),
    lease,
    );
  }

  start(): void {
    this.task.start();
  }

  async stop(): Promise<void> {
    await this.task.stop();
    await this.repairing;
  }

  /** Re-creates the index and alias when the alias is gone; one repair at a time. */
  repair(): Promise<void> {
    this.repairing ??= this.check().finally(() => {
      this.repairing = undefined;
    });
    return this.repairing;
  }

  private async check(): Promise<void> {
    // An unreachable node is not a missing index: nothing to re-create until it answers.
    if (!(await this.listingIndex.answers())) return;
    if (await this.listingIndex.aliasExists()) return;
    const result = await this.listingIndex.ensure();
    this.logger.warn('listing index was missing: re-created it behind the alias', { alias: this.listingIndex.alias, ...result });
  }
}
