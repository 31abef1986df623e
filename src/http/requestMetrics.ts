import type { RequestHandler } from 'express';
import type { Metrics } from '../metrics.js';

/**
 * Counts and times every request by its route pattern (`/discovery/publish/:id`, not the raw path),
 * so label cardinality stays bounded whatever clients send; unmatched paths share one label.
 */
export function requestMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const pattern: unknown = req.route?.path;
      const route =
        typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : Array.isArray(pattern) ? `${req.baseUrl}${pattern.join('|')}` : 'unmatched';
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method: req.method, route }, seconds);
    });
    next();
  };
}
