/** Prometheus metrics of federation: upstream pages and items by outcome, and each upstream's crawl state. */
import { Counter } from 'prom-client';
import { registerSampledGauge, type Metrics } from '../metrics.js';
import type { Federation } from './index.js';

const STATES = ['never', 'crawling', 'ok', 'error'] as const;

export function registerFederationMetrics(metrics: Metrics, federation: Federation): void {
  const pages = new Counter({
    name: 'reach_upstream_pages_total',
    help: 'Upstream catalog pages fetched, by upstream and result (ok, not_modified, error)',
    labelNames: ['upstream', 'result'],
    registers: [metrics.registry],
  });
  const items = new Counter({
    name: 'reach_upstream_items_total',
    help: 'Upstream catalog entries by outcome: queued for a probe, pending, verified (already listed), refused (recently), skipped, invalid',
    labelNames: ['upstream', 'outcome'],
    registers: [metrics.registry],
  });
  federation.observer.onPage = (upstream, result) => pages.inc({ upstream, result });
  federation.observer.onItems = (upstream, outcome, count) => {
    if (count > 0) items.inc({ upstream, outcome }, count);
  };
  registerSampledGauge(
    metrics,
    { name: 'reach_upstream_state', help: "1 for each upstream's current crawl state (never, crawling, ok, error)", labelNames: ['upstream', 'state'] },
    async () => (await federation.poller.statuses()).flatMap((s) => STATES.map((state) => ({ labels: { upstream: s.name, state }, value: s.state === state ? 1 : 0 }))),
  );
  registerSampledGauge(
    metrics,
    { name: 'reach_upstream_failures', help: 'Consecutive failed crawls of each upstream (0 after a success)', labelNames: ['upstream'] },
    async () => (await federation.poller.statuses()).map((s) => ({ labels: { upstream: s.name }, value: s.failures })),
  );
  registerSampledGauge(
    metrics,
    { name: 'reach_upstream_last_crawl_items', help: "Entries of each upstream's last crawl, by outcome", labelNames: ['upstream', 'outcome'] },
    async () =>
      (await federation.poller.statuses()).flatMap((s) =>
        Object.entries(s.lastCrawl)
          .filter(([key]) => key !== 'pages' && key !== 'notModified')
          .map(([outcome, value]) => ({ labels: { upstream: s.name, outcome }, value })),
      ),
  );
}
