import { Router } from 'express';
import type { FacilitatorService } from '../../facilitator/service.js';
import { isRedisUnavailable } from '../../store/redis.js';
import { ProblemError } from '../problem.js';

/** The ledger lives in Redis: without it nothing can be verified or settled, so say so (503) instead of a bare 500. */
async function withLedger<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!isRedisUnavailable(err)) throw err;
    throw new ProblemError(503, 'facilitator_unavailable', 'The payment ledger is unavailable; retry shortly.', { headers: { 'Retry-After': '2' } });
  }
}

/** x402 facilitator endpoints; bodies and answers are the x402 wire shapes (see docs/facilitator.md). */
export function facilitatorRoutes(service: FacilitatorService): Router {
  const router = Router();
  router.get('/supported', (_req, res) => {
    res.json(service.supported());
  });
  router.post('/verify', async (req, res) => {
    res.json(await withLedger(() => service.verify(req.body)));
  });
  router.post('/settle', async (req, res) => {
    res.json(await withLedger(() => service.settle(req.body)));
  });
  return router;
}
