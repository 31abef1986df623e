/**
 * Listing lifecycle reads: the change feed for mirrors. Thin: validate the query, ask the feed.
 */
import { Router } from 'express';
import type { ChangeFeed } from '../../lifecycle/changeFeed.js';
import { parseFeedRequest } from '../../lifecycle/feedRequest.js';

export function lifecycleRoutes(deps: { feed: ChangeFeed }): Router {
  const router = Router();
  router.get('/discovery/changes', async (req, res) => {
    res.json(await deps.feed.page(parseFeedRequest(req.query as Record<string, unknown>)));
  });
  return router;
}
