import type { RequestHandler } from 'express';
import type { Metrics } from '../metrics.js';

/**
 * Counts and times every request by its route pattern (`/discovery/publish/:id`, not the raw path),
 * so label cardinality stays bounded whatever clients send; unmatched paths share one label.
 */
export function requestMetrics(metrics: Metrics): RequestHandler {
  // prom-client hashes a label set on every inc/observe; the children of the few (method, route,
  // status) combinations are looked up once and kept (bounded like the labels themselves).
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(seconds: number): void }>();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const pattern: unknown = req.route?.path;
      const route =
        typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : Array.isArray(pattern) ? `${req.baseUrl}${pattern.join('|')}` : 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = String(res.statusCode);
      const countKey = `${req.method} ${route} ${status}`;
      let counter = counters.get(countKey);
      if (!counter) counters.set(countKey, (counter = metrics.httpRequests.labels(req.method, route, status)));
      counter.inc();
      const timeKey = `${req.method} ${route}`;
      let timer = timers.get(timeKey);
      if (!timer) timers.set(timeKey, (timer = metrics.httpDuration.labels(req.method, route)));
      timer.observe(seconds);
    });
    next();
  };
}
