/** The settlements this facilitator sent on chain, for sellers and buyers to check (src/facilitator/settlementHistory.ts). Thin. */
import { Router } from 'express';
import type { SettlementHistory } from '../../facilitator/settlementHistory.js';
import { rejectUnknown } from '../../core/queryParams.js';
import { PATHS } from '../paths.js';

export function settlementsRoutes(history: SettlementHistory): Router {
  const router = Router();
  router.get(PATHS.settlements, async (req, res) => {
    res.json(await history.ofPayee(req.query as Record<string, unknown>));
  });
  router.get(PATHS.settlement, async (req, res) => {
    rejectUnknown(req.query as Record<string, unknown>, []);
    res.json(await history.byTransaction(req.params.transaction!));
  });
  return router;
}
