/** Prometheus metrics of catalog reads: how often the read cache answered (search/readCache.ts). */
import { Counter } from 'prom-client';
import type { Metrics } from '../metrics.js';
import type { CacheOutcome } from './readCache.js';

/** The counter, and the callback that feeds it: hit (from memory), joined (waited for an identical read), miss. */
export function registerReadCacheMetrics(metrics: Metrics): (outcome: CacheOutcome) => void {
  const reads = new Counter({
    name: 'catalog_read_cache_total',
    help: 'Catalog reads by read-cache outcome: hit (answered from memory), joined (waited for an identical read in flight), miss',
    labelNames: ['outcome'],
    registers: [metrics.registry],
  });
  const children = { hit: reads.labels('hit'), joined: reads.labels('joined'), miss: reads.labels('miss') };
  return (outcome) => children[outcome].inc();
}
