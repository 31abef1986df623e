/**
 * The Prometheus registry of one service instance (prom-client). Modules register their own metrics
 * on `metrics.registry`; the ones shared across modules are created here. One registry per
 * container, so several instances in one process (tests) never collide on metric names.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  verifyOutcomes: Counter<'scheme' | 'network' | 'outcome' | 'reason'>;
  settleOutcomes: Counter<'scheme' | 'network' | 'outcome' | 'reason'>;
}

const EVENT_LOOP_SAMPLE_MS = 100;

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  // The event-loop lag is sampled every 100 ms, not prom-client's 10: a timer firing 100 times a
  // second cost an idle gateway 6.5 ms of CPU a second on a 2-core VM (half its idle CPU), which
  // every request paid a share of; ten samples a second still show a stalled loop.
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    verifyOutcomes: new Counter({
      name: 'facilitator_verify_total',
      help: 'POST /verify outcomes: valid, or invalid with its invalidReason',
      labelNames: ['scheme', 'network', 'outcome', 'reason'],
      registers: [registry],
    }),
    settleOutcomes: new Counter({
      name: 'facilitator_settle_total',
      help: 'POST /settle outcomes: settled, replayed (idempotent repeat), or failed with its errorReason',
      labelNames: ['scheme', 'network', 'outcome', 'reason'],
      registers: [registry],
    }),
  };
}

/**
 * A gauge whose values are read when Prometheus scrapes (balances, queue depths), so nothing has to
 * keep it up to date. A failing read leaves the gauge empty for that scrape instead of failing /metrics.
 */
export function registerSampledGauge<L extends string>(
  metrics: Metrics,
  options: { name: string; help: string; labelNames?: L[] },
  sample: () => Promise<Array<{ labels?: Partial<Record<L, string>>; value: number }>>,
): Gauge<L> {
  return new Gauge<L>({
    name: options.name,
    help: options.help,
    labelNames: options.labelNames ?? [],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      try {
        for (const { labels, value } of await sample()) {
          if (labels) this.set(labels as Record<L, string>, value);
          else this.set(value);
        }
      } catch {
        // Redis or the queue is down: the scrape still answers, without this sample.
      }
    },
  });
}

/** The catalog write queue's depth, in-flight entries and dead letters (sampled from its stats at scrape time). */
export function registerQueueGauges(
  metrics: Metrics,
  stats: () => Promise<{ depth: number; pending: number; deadLetters: number }>,
): void {
  const gauges = [
    ['catalog_ingest_queue_depth', 'Catalog writes waiting in the durable queue (not yet in Elasticsearch)', 'depth'],
    ['catalog_ingest_queue_pending', 'Catalog writes delivered to a consumer and not yet acknowledged', 'pending'],
    ['catalog_ingest_dead_letters', 'Catalog writes given up on and dead-lettered', 'deadLetters'],
  ] as const;
  for (const [name, help, field] of gauges) {
    registerSampledGauge(metrics, { name, help }, async () => [{ value: (await stats())[field] }]);
  }
}
