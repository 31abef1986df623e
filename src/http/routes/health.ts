import { Router } from 'express';
import { PATHS } from '../paths.js';

/** Whether each backend answers right now (the app factory checks the real clients). */
export type Readiness = () => Promise<{ elasticsearch: boolean; redis: boolean }>;

export function healthRoutes(readiness: Readiness): Router {
  const router = Router();

  // Liveness: the process serves requests; dependencies are readiness' business.
  router.get(PATHS.healthz, (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get(PATHS.readyz, async (_req, res) => {
    const { elasticsearch: es, redis } = await readiness();
    const checks = { elasticsearch: es ? 'ok' : 'unavailable', redis: redis ? 'ok' : 'unavailable' };
    if (es && redis) {
      res.json({ status: 'ready', checks });
      return;
    }
    const failing = Object.entries(checks).filter(([, v]) => v !== 'ok').map(([k]) => k);
    res
      .status(503)
      .type('application/problem+json')
      .send(
        JSON.stringify({
          type: '/problems/not_ready',
          title: 'Service Unavailable',
          status: 503,
          detail: `Not ready: ${failing.join(' and ')} ${failing.length > 1 ? 'do' : 'does'} not answer.`,
          code: 'not_ready',
          failing,
          checks,
        }),
      );
  });

  return router;
}
