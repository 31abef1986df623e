/** GET /discovery/reach: the upstream catalogs this service lists from and the state of their crawls (docs/reach.md). */
import { Router } from 'express';
import type { UpstreamStatus } from '../../reach/upstreamPoller.js';
import { PATHS } from '../paths.js';

export function reachRoutes(upstreams: { statuses(): Promise<UpstreamStatus[]> }): Router {
  const router = Router();
  router.get(PATHS.reach, async (_req, res) => {
    res.json({ upstreams: await upstreams.statuses() });
  });
  return router;
}
