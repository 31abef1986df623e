/**
 * Runs due probes behind the announce endpoint, at most `concurrency` at a time, so a slow or
 * hanging seller never delays an announce and a burst of announces never becomes a burst of
 * outgoing connections. Announces in this process wake it at once; other instances' announces are
 * picked up by polling the shared schedule.
 */
import type { BackgroundWorker } from '../core/worker.js';
import type { Logger } from '../logger.js';
import type { Prober } from './prober.js';
import type { ProbeStore } from '../store/redis/probeStore.js';
import { systemClock, type Clock } from '../core/clock.js';

export interface ProbeWorkerOptions {
  concurrency: number;
  /** How long a claimed probe may take before another worker may claim it again. */
  leaseMs: number;
  /**
   * How often the calendar is looked at for probes that became due (re-probes, health checks,
   * announces to another instance); an announce in this process wakes the worker at once. A
   * second: scheduled probes are minutes apart, and every look is a Redis round trip and a wake-up
   * of the process that its searches pay a share of.
   */
  pollMs?: number;
  now?: Clock;
}

export class ProbeWorker implements BackgroundWorker {
  readonly name = 'announce-prober';
  private running = false;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private wakeUp?: () => void;
  /** A wake that arrived while the loop was busy: the next idle returns at once instead of missing it. */
  private woken = false;
  private readonly now: Clock;

  constructor(
    private readonly store: ProbeStore,
    private readonly prober: Prober,
    private readonly logger: Logger,
    private readonly options: ProbeWorkerOptions,
  ) {
    this.now = options.now ?? systemClock;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Something became due (an announce in this process): look now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Probes everything due at `now()` and waits for it (tests drive re-probes with a fake clock). */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const ids = await this.store.claimDue(this.now(), this.options.concurrency, this.options.leaseMs);
      if (ids.length === 0) return total;
      total += ids.length;
      await Promise.all(ids.map((id) => this.probeOne(id)));
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.options.concurrency - this.inFlight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const ids = await this.store.claimDue(this.now(), free, this.options.leaseMs);
          claimed = ids.length;
          for (const id of ids) {
            const task: Promise<void> = this.probeOne(id).finally(() => {
              this.inFlight.delete(task);
              this.wake();
            });
            this.inFlight.add(task);
          }
        } catch (err) {
          this.logger.warn('probe schedule unavailable', { err: (err as Error).message });
          await this.idle(1000);
          continue;
        }
      }
      if (claimed > 0 && claimed === free) continue;
      await this.idle(this.options.pollMs ?? 1000);
    }
  }

  private async probeOne(id: string): Promise<void> {
    try {
      await this.prober.probe(id);
    } catch (err) {
      // The lease brings the id back; nothing else to do but say why.
      this.logger.warn('probe failed unexpectedly', { id, err: (err as Error).message });
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.woken = false;
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
