import { Router } from 'express';
import type { Metrics } from '../../metrics.js';
import { PATHS } from '../paths.js';
import { requestMetrics } from '../requestMetrics.js';

/**
 * `GET /metrics` in Prometheus text format, plus the request counting middleware. Mounted first
 * among the feature routers so that it times every feature route.
 */
export function metricsRoutes(metrics: Metrics): Router {
  const router = Router();
  router.use(requestMetrics(metrics));
  router.get(PATHS.metrics, async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return router;
}
