/** Prometheus metrics of the staleness sweep. */
import { Counter } from 'prom-client';
import type { Metrics } from '../metrics.js';
import type { StalenessWorker } from './stalenessWorker.js';

export function registerStalenessMetrics(metrics: Metrics, staleness: StalenessWorker): void {
  const expired = new Counter({
    name: 'announce_stale_removed_total',
    help: 'Listings removed as stale (no 402 report and no settlement within STALE_AFTER_DAYS)',
    registers: [metrics.registry],
  });
  staleness.onExpired = (count) => expired.inc(count);
}
