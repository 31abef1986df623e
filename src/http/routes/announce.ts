/** Announce (open, rate limited per client) and the announce status lookup; thin over AnnounceService. */
import { Router, type RequestHandler } from 'express';
import type { AnnounceService } from '../../announce/announceService.js';
import { parseStatusQuery } from '../../announce/statusQuery.js';
import type { OriginAnnouncer } from '../../federation/originAnnouncer.js';
import { isObject } from '../../core/json.js';
import { announceStatusPath, originStatusPath, PATHS } from '../paths.js';

export interface AnnounceRouteDeps {
  announce: AnnounceService;
  /** An announce of `origin` (instead of `resource`) reads the origin's manifests (src/federation). */
  origins: OriginAnnouncer;
  /** Applied to POST /discovery/announce only. */
  announceLimit?: RequestHandler;
}

export function announceRoutes(deps: AnnounceRouteDeps): Router {
  const router = Router();
  const limited: RequestHandler[] = deps.announceLimit ? [deps.announceLimit] : [];

  router.post(PATHS.announce, ...limited, async (req, res) => {
    if (isObject(req.body) && 'origin' in req.body) {
      const record = await deps.origins.announceOrigin(req.body);
      const statusUrl = originStatusPath(record.origin);
      res.status(202).location(statusUrl).json({ ...record, statusUrl });
      return;
    }
    const result = await deps.announce.announce(req.body);
    const statusUrl = announceStatusPath(result.id);
    res.status(202).location(statusUrl).json({ ...result, statusUrl });
  });

  router.get(PATHS.announceStatus, async (req, res) => {
    const query = parseStatusQuery(req.query as Record<string, unknown>);
    res.json(query.origin !== undefined ? await deps.origins.status(query.origin) : await deps.announce.status(query));
  });

  return router;
}
