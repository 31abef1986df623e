/** GET /discovery/reach: the upstream catalogs this service lists from and the state of their crawls (docs/federation.md). */
import { Router } from 'express';
import type { UpstreamStatus } from '../../federation/upstreamPoller.js';
import { PATHS } from '../paths.js';

export function federationRoutes(upstreams: { statuses(): Promise<UpstreamStatus[]> }): Router {
  const router = Router();
  router.get(PATHS.reach, async (_req, res) => {
    res.json({ upstreams: await upstreams.statuses() });
  });
  return router;
}
