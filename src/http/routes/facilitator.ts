import { Router } from 'express';
import type { FacilitatorService } from '../../facilitator/service.js';

/** x402 facilitator endpoints; bodies and answers are the x402 wire shapes (see docs/facilitator.md). */
export function facilitatorRoutes(service: FacilitatorService): Router {
  const router = Router();
  router.get('/supported', (_req, res) => {
    res.json(service.supported());
  });
  router.post('/verify', async (req, res) => {
    res.json(await service.verify(req.body));
  });
  router.post('/settle', async (req, res) => {
    res.json(await service.settle(req.body));
  });
  return router;
}
