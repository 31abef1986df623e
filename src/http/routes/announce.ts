/** Announce (open, rate limited per client) and the announce status lookup; thin over AnnounceService. */
import { Router, type RequestHandler } from 'express';
import type { AnnounceService } from '../../announce/announceService.js';
import { parseStatusQuery } from '../../announce/statusQuery.js';
import { announceStatusPath, PATHS } from '../paths.js';

export interface AnnounceRouteDeps {
  announce: AnnounceService;
  /** Applied to POST /discovery/announce only. */
  announceLimit?: RequestHandler;
}

export function announceRoutes(deps: AnnounceRouteDeps): Router {
  const router = Router();
  const limited: RequestHandler[] = deps.announceLimit ? [deps.announceLimit] : [];

  router.post(PATHS.announce, ...limited, async (req, res) => {
    const result = await deps.announce.announce(req.body);
    const statusUrl = announceStatusPath(result.id);
    res.status(202).location(statusUrl).json({ ...result, statusUrl });
  });

  router.get(PATHS.announceStatus, async (req, res) => {
    res.json(await deps.announce.status(parseStatusQuery(req.query as Record<string, unknown>)));
  });

  return router;
}
