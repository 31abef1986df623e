import { Router, type RequestHandler } from 'express';
import { PayerLimitExceeded } from '../../facilitator/payerLimit.js';
import type { FacilitatorService } from '../../facilitator/service.js';
import { isRedisUnavailable } from '../../store/redis.js';
import { ProblemError } from '../problem.js';
import { rateLimited } from '../rateLimit.js';

/**
 * The ledger lives in Redis: without it nothing can be verified or settled, so say so (503) instead
 * of a bare 500. A payer over its budget is a 429 like any other rate limit.
 */
async function withLedger<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof PayerLimitExceeded) throw rateLimited(err.rule, err.retryAfterSeconds, 'payments from this payer');
    if (!isRedisUnavailable(err)) throw err;
    throw new ProblemError(503, 'facilitator_unavailable', 'The payment ledger is unavailable; retry shortly.', { headers: { 'Retry-After': '2' } });
  }
}

/** x402 facilitator endpoints; bodies and answers are the x402 wire shapes (see docs/facilitator.md). */
export function facilitatorRoutes(service: FacilitatorService, limits: { verify?: RequestHandler | undefined; settle?: RequestHandler | undefined } = {}): Router {
  const router = Router();
  const limited = (handler: RequestHandler | undefined) => (handler ? [handler] : []);
  router.get('/supported', (_req, res) => {
    res.json(service.supported());
  });
  router.post('/verify', ...limited(limits.verify), async (req, res) => {
    res.json(await withLedger(() => service.verify(req.body)));
  });
  router.post('/settle', ...limited(limits.settle), async (req, res) => {
    res.json(await withLedger(() => service.settle(req.body)));
  });
  return router;
}
