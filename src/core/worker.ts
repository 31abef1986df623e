/** A loop that runs beside the HTTP server (ingest consumer, signal flusher, re-prober, ...). */
export interface BackgroundWorker {
  readonly name: string;
  start(): void;
  /** Resolves once the current iteration finished; no new work starts after it is called. */
  stop(): Promise<void>;
}

/**
 * The right to run a periodic pass when several instances of the service run the same worker
 * (store/redis/lease.ts keeps it in Redis): only the holder runs a pass; the others skip it.
 */
export interface PassLease {
  /** True when this instance holds it now (taken, or its hold extended). */
  hold(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * "Run this every N ms" for background workers: passes never overlap (the next one is scheduled
 * when the current one ends, however long it took), a failed pass is reported and the schedule
 * goes on, the timer never keeps the process alive, and stop() waits for the pass in progress so
 * nothing is cut off mid-write. With a lease, a pass runs only on the instance holding it, so N
 * instances run it once per period between them, and stop() hands the lease back.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private stopped = true;
  /** Whether the last pass found this instance holding the lease (only then is there one to give back). */
  private holding = false;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly lease?: PassLease,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  /**
   * Callers may stop it concurrently (shutdown stops workers side by side while the facilitator's
   * connection closer also waits for its flusher): they share one stop, so the lease is handed
   * back once.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopOnce().finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
    if (this.lease && this.holding) await this.lease.release().catch(this.onError);
    this.holding = false;
  }

  /** The pass, when this instance may run it (no lease, or the lease held). */
  private async leasedPass(): Promise<unknown> {
    if (this.lease) this.holding = await this.lease.hold();
    if (this.lease && !this.holding) return undefined;
    return this.pass();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.current = this.leasedPass()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.current = undefined;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }
}

/**
 * `resource` (a connection's closer) as a worker whose stop first waits, one after another, for
 * everything that still uses it (`users`: a worker's stop, an idle wait), then closes it. Shutdown
 * stops workers side by side; this keeps the resource open under its users whatever the order.
 */
export function closedAfter(resource: BackgroundWorker, users: Array<() => Promise<unknown>>): BackgroundWorker {
  return {
    name: resource.name,
    start: () => resource.start(),
    stop: async () => {
      for (const wait of users) await wait();
      await resource.stop();
    },
  };
}
