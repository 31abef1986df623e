/** A loop that runs beside the HTTP server (ingest consumer, signal flusher, re-prober, ...). */
export interface BackgroundWorker {
  readonly name: string;
  start(): void;
  /** Resolves once the current iteration finished; no new work starts after it is called. */
  stop(): Promise<void>;
}

/**
 * "Run this every N ms" for background workers: passes never overlap (the next one is scheduled
 * when the current one ends, however long it took), a failed pass is reported and the schedule
 * goes on, the timer never keeps the process alive, and stop() waits for the pass in progress so
 * nothing is cut off mid-write.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.current = this.pass()
        .then(() => undefined, this.onError)
        .finally(() => {
          this.current = undefined;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }
}
