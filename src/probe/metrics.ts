/** Prometheus metrics of probing: probe results by reason and the probe calendar's backlog. */
import { Counter } from 'prom-client';
import { registerSampledGauge, type Metrics } from '../metrics.js';
import type { Probing } from './index.js';
import { systemClock, type Clock } from '../core/clock.js';

export function registerProbeMetrics(metrics: Metrics, probing: Probing, now: Clock = systemClock): void {
  const probes = new Counter({
    name: 'announce_probes_total',
    help: 'Probes by result (listed, rejected, removed, kept) and reason (ok or the status reason)',
    labelNames: ['result', 'reason'],
    registers: [metrics.registry],
  });
  probing.prober.onResult = (result, reason) => probes.inc({ result, reason });
  registerSampledGauge(metrics, { name: 'announce_probe_backlog', help: 'Probes due now and not yet run' }, async () => [
    { value: await probing.store.dueCount(now()) },
  ]);
  registerSampledGauge(metrics, { name: 'announce_probe_scheduled', help: 'Resources on the probe calendar (queued and re-probes)' }, async () => [
    { value: await probing.store.dueCount() },
  ]);
}
