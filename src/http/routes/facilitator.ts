import { Router } from 'express';
import type { FacilitatorService } from '../../facilitator/service.js';
import { PATHS } from '../paths.js';

/** x402 facilitator endpoints; bodies and answers are the x402 wire shapes (see docs/facilitator.md). */
export function facilitatorRoutes(service: FacilitatorService): Router {
  const router = Router();
  router.get(PATHS.supported, (_req, res) => {
    res.json(service.supported());
  });
  router.post(PATHS.verify, async (req, res) => {
    res.json(await service.verify(req.body));
  });
  router.post(PATHS.settle, async (req, res) => {
    res.json(await service.settle(req.body));
  });
  return router;
}
