/**
 * `signals.health` (issue 13, docs/health.md): what the active health checks of the 7-day
 * window say about a listing. The checks themselves are recorded by the announce module's re-probes
 * (store/redis/healthChecks.ts).
 */
import type { Health } from '../shapes/listing.js';
import type { HealthCheck } from '../store/redis/healthChecks.js';

/** The `signals.health` block of a window of checks; undefined when there is none. */
export function summarizeChecks(checks: HealthCheck[]): Health | undefined {
  if (checks.length === 0) return undefined;
  const ok = checks.filter((c) => c.ok);
  const latencies = ok.map((c) => c.latencyMs).sort((a, b) => a - b);
  // Lower middle for an even count: always a latency that was really measured.
  const p50 = latencies.length === 0 ? null : latencies[Math.floor((latencies.length - 1) / 2)]!;
  const last = Math.max(...checks.map((c) => c.at));
  return { uptime7d: Math.round((ok.length / checks.length) * 10_000) / 10_000, latencyP50Ms: p50, lastChecked: new Date(last).toISOString() };
}
