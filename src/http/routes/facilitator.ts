import { Router, type RequestHandler, type Response } from 'express';
import { PayerLimitExceeded } from '../../facilitator/payerLimit.js';
import type { FacilitatorAnswer, FacilitatorService } from '../../facilitator/service.js';
import { encodeBase64Json, EXTENSION_RESPONSES_HEADER } from '../../x402/wire.js';
import { Unavailable } from '../../core/errors.js';
import { isRedisUnavailable } from '../../store/backendErrors.js';
import { PATHS } from '../paths.js';
import { rateLimited } from '../rateLimit.js';

/**
 * The settlement records and the chain journal live in Redis: without it nothing can be settled
 * exactly once, so say so (503) instead of a bare 500. A payer over its budget is a 429 like any
 * other rate limit.
 */
async function withSettlementStore<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof PayerLimitExceeded) throw rateLimited(err.rule, err.retryAfterSeconds, 'payments from this payer');
    if (!isRedisUnavailable(err)) throw err;
    throw new Unavailable('facilitator', 'The settlement store is unavailable; retry shortly.', 2);
  }
}

/** The Bazaar outcome travels in the EXTENSION-RESPONSES sidechannel, never in the body the buyer may see. */
function send(res: Response, answer: FacilitatorAnswer<unknown>): void {
  if (answer.bazaar) {
    res.setHeader(EXTENSION_RESPONSES_HEADER, encodeBase64Json({ bazaar: answer.bazaar }));
    res.setHeader('Access-Control-Expose-Headers', EXTENSION_RESPONSES_HEADER);
  }
  res.json(answer.response);
}

/** x402 facilitator endpoints; bodies and answers are the x402 wire shapes (see docs/facilitator.md). */
export function facilitatorRoutes(service: FacilitatorService, limits: { verify?: RequestHandler | undefined; settle?: RequestHandler | undefined } = {}): Router {
  const router = Router();
  const limited = (handler: RequestHandler | undefined) => (handler ? [handler] : []);
  router.get(PATHS.supported, (_req, res) => {
    res.json(service.supported());
  });
  // The body is parsed once, here; the service works on the parsed request from then on.
  router.post(PATHS.verify, ...limited(limits.verify), async (req, res) => {
    const request = service.readVerify(req.body);
    send(res, await withSettlementStore(() => service.verify(request)));
  });
  router.post(PATHS.settle, ...limited(limits.settle), async (req, res) => {
    const request = service.readSettle(req.body);
    send(res, await withSettlementStore(() => service.settle(request)));
  });
  return router;
}
