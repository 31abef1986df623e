/**
 * Background worker that pushes changed listing signals into the catalog in bulk through the
 * CatalogWriter, every `intervalMs` (docs/facilitator.md, "Signals": at least every 5 s). Listings whose counts fell
 * because traffic aged out of the 7-day window are flushed too, so Elasticsearch follows the window.
 * `signals.health` rides along: a health check marks its listing dirty, and each flush writes the
 * listing's whole signals block (listingSignals.ts).
 */
import type { CatalogWriter } from '../catalog/writer.js';
import type { BackgroundWorker } from '../core/worker.js';
import type { Logger } from '../logger.js';
import { PeriodicTask } from '../core/worker.js';
import type { SignalCounters } from './counters.js';
import type { ListingSignals } from './listingSignals.js';

const BATCH = 500;

export class SignalFlusher implements BackgroundWorker {
  readonly name = 'signal-flusher';
  private readonly task: PeriodicTask;
  /** Listings flushed since start; tests and the benchmark read it. */
  flushed = 0;

  constructor(
    private readonly counters: Pick<SignalCounters, 'aged' | 'markDirty' | 'takeDirty'>,
    private readonly signals: Pick<ListingSignals, 'read'>,
    private readonly writer: () => CatalogWriter | undefined,
    private readonly logger: Logger,
    intervalMs: number,
  ) {
    this.task = new PeriodicTask(() => this.flushNow(), intervalMs, (err) =>
      this.logger.warn('signal flush failed; will retry', { err: (err as Error).message }),
    );
  }

  start(): void {
    this.task.start();
  }

  /** Resolves once the pass in progress (if any) finished; no new pass starts after it. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One flush pass: every dirty listing, and every listing whose counts aged, reaches the writer. */
  async flushNow(): Promise<number> {
    const writer = this.writer();
    if (!writer) return 0;
    let total = 0;
    for (let aged = await this.counters.aged(); aged.length > 0; aged = await this.counters.aged()) {
      await this.counters.markDirty(aged);
    }
    for (;;) {
      const ids = await this.counters.takeDirty(BATCH);
      if (ids.length === 0) break;
      try {
        const signals = await this.signals.read(ids);
        await writer.updateSignals(ids.map((id) => ({ id, signals: signals.get(id)! })));
      } catch (err) {
        await this.counters.markDirty(ids);
        throw err;
      }
      total += ids.length;
      this.flushed += ids.length;
      if (ids.length < BATCH) break;
    }
    return total;
  }
}
