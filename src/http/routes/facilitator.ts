import { Router, type RequestHandler } from 'express';
import { PayerLimitExceeded } from '../../facilitator/payerLimit.js';
import type { FacilitatorService } from '../../facilitator/service.js';
import { PATHS } from '../paths.js';
import { rateLimited } from '../rateLimit.js';

/**
 * A payer over its budget is a 429 like any other rate limit (the service itself reports a missing
 * ledger as Unavailable).
 */
async function withLedger<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof PayerLimitExceeded) throw rateLimited(err.rule, err.retryAfterSeconds, 'payments from this payer');
    throw err;
  }
}

/** x402 facilitator endpoints; bodies and answers are the x402 wire shapes (see docs/facilitator.md). */
export function facilitatorRoutes(service: FacilitatorService, limits: { verify?: RequestHandler | undefined; settle?: RequestHandler | undefined } = {}): Router {
  const router = Router();
  const limited = (handler: RequestHandler | undefined) => (handler ? [handler] : []);
  router.get(PATHS.supported, (_req, res) => {
    res.json(service.supported());
  });
  router.post(PATHS.verify, ...limited(limits.verify), async (req, res) => {
    res.json(await withLedger(() => service.verify(req.body)));
  });
  router.post(PATHS.settle, ...limited(limits.settle), async (req, res) => {
    res.json(await withLedger(() => service.settle(req.body)));
  });
  return router;
}
