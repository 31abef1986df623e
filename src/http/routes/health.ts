import { Router } from 'express';
import type { Client } from '@elastic/elasticsearch';
import type { RedisClient } from '../../core/clients.js';
import { elasticsearchAnswers } from '../../store/elasticsearch/client.js';
import { redisAnswers } from '../../store/redis/client.js';

/** The listings alias exists (it disappears with its index; IndexKeeper puts both back). */
async function listingIndexExists(client: Client, alias: string): Promise<boolean> {
  try {
    return await client.indices.existsAlias({ name: alias }, { requestTimeout: 2000, maxRetries: 0 });
  } catch {
    return false;
  }
}

export function healthRoutes(deps: { elasticsearch: Client; redis: RedisClient; config: { listingsAlias: string } }): Router {
  const router = Router();

  // Liveness: the process serves requests; dependencies are readiness' business.
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const [es, redis] = await Promise.all([elasticsearchAnswers(deps.elasticsearch), redisAnswers(deps.redis)]);
    const index = es && (await listingIndexExists(deps.elasticsearch, deps.config.listingsAlias));
    const checks = { elasticsearch: es ? 'ok' : 'unavailable', redis: redis ? 'ok' : 'unavailable', listingIndex: index ? 'ok' : es ? 'missing' : 'unknown' };
    if (es && redis && index) {
      res.json({ status: 'ready', checks });
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
        }),
      );
  });

  return router;
}
