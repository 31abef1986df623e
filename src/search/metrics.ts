/** Prometheus metrics of catalog reads: how often the read cache and the neighbour cache answered (search/readCache.ts, search/neighbourCache.ts). */
import { Counter } from 'prom-client';
import type { Metrics } from '../metrics.js';
import type { CacheOutcome } from './readCache.js';

export interface CatalogReadMetrics {
  onCacheOutcome: (outcome: CacheOutcome) => void;
  onNeighbourOutcome: (outcome: CacheOutcome) => void;
}

/** The counters, and the callbacks that feed them: hit (from memory), joined (waited for an identical one in flight), miss. */
export function registerCatalogReadMetrics(metrics: Metrics): CatalogReadMetrics {
  const counter = (name: string, help: string) => {
    const counted = new Counter({ name, help, labelNames: ['outcome'], registers: [metrics.registry] });
    const children = { hit: counted.labels('hit'), joined: counted.labels('joined'), miss: counted.labels('miss') };
    return (outcome: CacheOutcome) => children[outcome].inc();
  };
  return {
    onCacheOutcome: counter('catalog_read_cache_total', 'Catalog reads by read-cache outcome: hit (answered from memory), joined (waited for an identical read in flight), miss'),
    onNeighbourOutcome: counter(
      'catalog_neighbour_cache_total',
      "Ranked searches' kNN searches by neighbour-cache outcome: hit (neighbours kept from the same kNN search), joined (waited for one in flight), miss (sent to Elasticsearch)",
    ),
  };
}
