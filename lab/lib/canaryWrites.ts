/**
 * Canary writes for fault runs (lab/chaos/clusterChaos.ts, lab/soak/soak.ts): one publish every
 * `everyMs`, each polled by id until a gateway serves it, so a report can say how long an
 * acknowledged write took to be applied around each fault. "Served" is GET
 * /discovery/resources/{id}, a real-time read of the stored listing: the write path's own delay,
 * without the index refresh (at most 1 s more for search).
 */
export interface Canary {
  id: string;
  /** Seconds since the run started: when the publish was acknowledged, and when it was first served. */
  ackedAt: number;
  servedAt?: number;
}

export interface CanaryOptions {
  everyMs: number;
  /** Publishes one listing named by `n`; resolves to its id when acknowledged (2xx), else undefined. */
  publish(n: number): Promise<string | undefined>;
  /** Whether a gateway serves the listing. */
  served(id: string): Promise<boolean>;
  /** Seconds since the run started. */
  elapsed(): number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startCanaries(options: CanaryOptions): { canaries: Canary[]; stop(): Promise<void> } {
  const canaries: Canary[] = [];
  let stopping = false;
  /** Set once the writer's last publish has answered: a canary acknowledged after the checker's last look would go unchecked. */
  let written = false;
  const writer = (async () => {
    for (let n = 0; !stopping; n++) {
      const id = await options.publish(n).catch(() => undefined);
      if (id) canaries.push({ id, ackedAt: options.elapsed() });
      await sleep(options.everyMs);
    }
    written = true;
  })();
  const checker = (async () => {
    // Keeps polling after the writer stops, until every canary is served or 60 s have passed.
    let quietSince: number | undefined;
    for (;;) {
      const waiting = canaries.filter((c) => c.servedAt === undefined);
      if (written && (waiting.length === 0 || (quietSince !== undefined && options.elapsed() - quietSince > 60))) return;
      if (written) quietSince ??= options.elapsed();
      await Promise.all(
        waiting.map(async (canary) => {
          if (await options.served(canary.id).catch(() => false)) canary.servedAt = options.elapsed();
        }),
      );
      await sleep(200);
    }
  })();
  return {
    canaries,
    async stop() {
      stopping = true;
      await writer;
      await checker;
    },
  };
}

export interface CanaryWindow {
  label: string;
  from: number;
  to: number;
  acknowledged: number;
  notServed: number;
  /** Acknowledged-to-served, seconds: the slowest, and the median. */
  maxLagS?: number;
  medianLagS?: number;
}

/** Canary lags per window between consecutive marks (faults), the last window ending at `end`. */
export function canaryWindows(canaries: Canary[], marks: Array<{ label: string; at: number }>, end: number): CanaryWindow[] {
  const bounds = [{ label: 'before the first fault', at: 0 }, ...marks];
  return bounds.map((mark, i) => {
    const to = bounds[i + 1]?.at ?? end;
    const inWindow = canaries.filter((c) => c.ackedAt >= mark.at && c.ackedAt < to);
    const lags = inWindow.flatMap((c) => (c.servedAt === undefined ? [] : [c.servedAt - c.ackedAt])).sort((a, b) => a - b);
    const round = (s: number | undefined) => (s === undefined ? undefined : Number(s.toFixed(1)));
    return {
      label: mark.label,
      from: round(mark.at)!,
      to: round(to)!,
      acknowledged: inWindow.length,
      notServed: inWindow.length - lags.length,
      maxLagS: round(lags[lags.length - 1]),
      medianLagS: round(lags[Math.floor(lags.length / 2)]),
    };
  });
}

/**
 * Seconds after `at` (a failover's completion) until every canary acknowledged before it was
 * served (0 when all were served by then); undefined when one never was.
 */
export function servedAfter(canaries: Canary[], at: number): number | undefined {
  let latest = at;
  for (const canary of canaries.filter((c) => c.ackedAt < at)) {
    if (canary.servedAt === undefined) return undefined;
    latest = Math.max(latest, canary.servedAt);
  }
  return Number((latest - at).toFixed(1));
}
