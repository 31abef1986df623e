import { Router } from 'express';
import type { Client } from '@elastic/elasticsearch';
import type { Redis } from 'ioredis';
import { elasticsearchAnswers } from '../../store/elasticsearch.js';
import { redisAnswers } from '../../store/redis.js';

export function healthRoutes(deps: { elasticsearch: Client; redis: Redis }): Router {
  const router = Router();

  // Liveness: the process serves requests; dependencies are readiness' business.
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const [es, redis] = await Promise.all([elasticsearchAnswers(deps.elasticsearch), redisAnswers(deps.redis)]);
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
