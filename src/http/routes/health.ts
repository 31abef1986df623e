import { Router } from 'express';
import type { ReadinessProbe } from '../../store/readiness.js';

export function healthRoutes(deps: { readiness: ReadinessProbe }): Router {
  const router = Router();

  // Liveness: the process serves requests; dependencies are readiness' business.
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const { elasticsearch: es, redis, listingIndex: index, redisPersistence, redisMemory } = await deps.readiness();
    const checks = { elasticsearch: es ? 'ok' : 'unavailable', redis: redis ? 'ok' : 'unavailable', listingIndex: index ? 'ok' : es ? 'missing' : 'unknown' };
    if (es && redis && index) {
      // Not durable and memory near its limit are warnings for the operator (also logged at start),
      // not reasons to refuse traffic: reads go on, a refused write answers 503 by itself.
      res.json({ status: 'ready', checks, ...(redisPersistence && { redisPersistence }), ...(redisMemory && { redisMemory }) });
      return;
    }
    const failing = Object.entries(checks).filter(([, v]) => v !== 'ok' && v !== 'unknown').map(([k]) => k);
    res
      .status(503)
      .type('application/problem+json')
      .send(
        JSON.stringify({
          type: '/problems/not_ready',
          title: 'Service Unavailable',
          status: 503,
          detail: `Not ready: ${failing.map((name) => (name === 'listingIndex' ? 'the listing index is missing (being re-created)' : `${name} does not answer`)).join(' and ')}.`,
          code: 'not_ready',
          failing,
          checks,
          ...(redisPersistence && { redisPersistence }),
          ...(redisMemory && { redisMemory }),
        }),
      );
  });

  return router;
}
