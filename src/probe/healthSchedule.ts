/**
 * Active health (issue 13, docs/health.md): every re-probe of a listed resource is a
 * health check. This decides when the next one is due (recently settled listings more often) and
 * records what each found. Scheduling, leases across gateways, per-host rate limits, SSRF rules and
 * removal after repeated failures are the probe's own (ProbeStore, ProbeWorker, Prober): a check is
 * a re-probe, not a second path.
 */
import type { AnnounceSettings } from '../config/announceSettings.js';
import type { HealthChecks } from '../store/redis/healthChecks.js';

/** "Recently active": settled within this long (the signals' 7-day window). */
export const ACTIVE_WINDOW_MS = 7 * 86_400_000;

type ScheduleSettings = Pick<AnnounceSettings, 'healthActiveIntervalMs' | 'healthIdleIntervalMs' | 'reprobeIntervalMs'>;

export class HealthSchedule {
  constructor(
    private readonly settings: ScheduleSettings,
    private readonly checks: Pick<HealthChecks, 'record' | 'lastSettledAt'>,
  ) {}

  /** Milliseconds until the listing's next check: active or idle interval, never beyond the re-probe period. */
  async intervalFor(listingId: string, at: number): Promise<number> {
    const lastSettled = await this.checks.lastSettledAt(listingId);
    const active = lastSettled !== undefined && at - lastSettled <= ACTIVE_WINDOW_MS;
    const interval = active ? this.settings.healthActiveIntervalMs : this.settings.healthIdleIntervalMs;
    return Math.min(interval, this.settings.reprobeIntervalMs);
  }

  /** One check of a listed resource: whether a valid 402 matching the listing came back, and how fast. */
  record(listingId: string, ok: boolean, latencyMs: number, at: number): Promise<void> {
    return this.checks.record(listingId, { at, ok, latencyMs });
  }
}
