/** Prometheus metrics of announcing: probe results by reason, the probe backlog, stale expiries. */
import { Counter } from 'prom-client';
import { registerSampledGauge, type Metrics } from '../metrics.js';
import type { Announcing } from './index.js';
import { systemClock, type Clock } from '../core/clock.js';

export function registerAnnounceMetrics(metrics: Metrics, announcing: Announcing, now: Clock = systemClock): void {
  const probes = new Counter({
    name: 'announce_probes_total',
    help: 'Probes by result (listed, rejected, removed, kept) and reason (ok or the status reason)',
    labelNames: ['result', 'reason'],
    registers: [metrics.registry],
  });
  announcing.prober.onResult = (result, reason) => probes.inc({ result, reason });
  const expired = new Counter({
    name: 'announce_stale_removed_total',
    help: 'Listings removed as stale (no 402 report and no settlement within STALE_AFTER_DAYS)',
    registers: [metrics.registry],
  });
  announcing.staleness.onExpired = (count) => expired.inc(count);
  registerSampledGauge(metrics, { name: 'announce_probe_backlog', help: 'Probes due now and not yet run' }, async () => [
    { value: await announcing.store.dueCount(now()) },
  ]);
  registerSampledGauge(metrics, { name: 'announce_probe_scheduled', help: 'Resources on the probe calendar (queued and re-probes)' }, async () => [
    { value: await announcing.store.dueCount() },
  ]);
}
