/**
 * Expires listings nobody has seen for `staleAfterMs` (no 402 report, probe, republish or
 * settlement) with `remove(id, 'stale')`, and says so in the announce status. A sweep removes at
 * most `maxPerSweep` listings so a backlog drains over several sweeps instead of one long burst.
 */
import type { BackgroundWorker, PassLease } from '../core/worker.js';
import type { StaleListingFinder } from '../store/elasticsearch/staleListings.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { Logger } from '../logger.js';
import { PeriodicTask } from '../core/worker.js';
import type { ProbeStore } from '../store/redis/probeStore.js';
import { systemClock, type Clock } from '../core/clock.js';

export interface StalenessOptions {
  staleAfterMs: number;
  sweepIntervalMs: number;
  pageSize?: number;
  maxPerSweep?: number;
  now?: Clock;
  /** With several instances, only the lease holder sweeps (a sweep twice would remove listings twice). */
  lease?: PassLease;
}

export class StalenessWorker implements BackgroundWorker {
  readonly name = 'staleness-sweeper';
  private readonly task: PeriodicTask;
  private readonly now: Clock;
  /** Observer for metrics: listings expired by one sweep. */
  onExpired?: (count: number) => void;

  constructor(
    private readonly finder: StaleListingFinder,
    private readonly writer: CatalogWriter,
    private readonly store: ProbeStore,
    private readonly logger: Logger,
    private readonly options: StalenessOptions,
  ) {
    this.now = options.now ?? systemClock;
    this.task = new PeriodicTask(() => this.sweep(), options.sweepIntervalMs, (err) =>
      this.logger.warn('staleness sweep failed', { err: (err as Error).message }),
    options.lease,
    );
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One pass; resolves with the ids it removed. */
  async sweep(): Promise<string[]> {
    const at = this.now();
    const cutoff = new Date(at - this.options.staleAfterMs);
    const pageSize = this.options.pageSize ?? 500;
    const maxPerSweep = this.options.maxPerSweep ?? 10_000;
    const removed: string[] = [];
    let after: unknown[] | undefined;
    do {
      const page = await this.finder.seenBefore(cutoff, pageSize, after);
      // One page at a time, its removals in parallel: pages are small (500) and each is two Redis calls.
      await Promise.all(
        page.ids.map(async (id) => {
          await this.writer.remove(id, 'stale');
          await this.markStale(id, at);
        }),
      );
      removed.push(...page.ids);
      after = page.next;
    } while (after && removed.length < maxPerSweep);
    this.onExpired?.(removed.length);
    if (removed.length > 0) this.logger.info('expired stale listings', { count: removed.length, cutoff: cutoff.toISOString() });
    return removed;
  }

  private async markStale(id: string, at: number): Promise<void> {
    const record = await this.store.get(id);
    if (!record) return;
    await this.store.finish(
      id,
      { status: 'rejected', reason: 'stale', detail: `not seen for ${Math.round(this.options.staleAfterMs / 86_400_000)} days`, lastProbedAt: record.lastProbedAt },
      { forgetAfterMs: 7 * 86_400_000 },
    );
  }
}
