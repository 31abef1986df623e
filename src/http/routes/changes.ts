/**
 * Listing lifecycle reads: the change feed for mirrors and one listing's history. Thin: validate
 * the query, ask the service.
 */
import { Router } from 'express';
import type { ChangeFeed } from '../../changes/changeFeed.js';
import { parseFeedRequest, parseHistoryRequest } from '../../changes/feedRequest.js';
import type { HistoryReader } from '../../changes/historyReader.js';
import { NotFound } from '../../core/errors.js';
import { isListingId } from '../../core/listingId.js';
import { PATHS } from '../paths.js';

export function changesRoutes(deps: { feed: ChangeFeed; history: HistoryReader }): Router {
  const router = Router();
  router.get(PATHS.changes, async (req, res) => {
    res.json(await deps.feed.page(parseFeedRequest(req.query as Record<string, unknown>)));
  });
  router.get(PATHS.history, async (req, res) => {
    const { limit } = parseHistoryRequest(req.query as Record<string, unknown>);
    const page = isListingId(req.params.id) ? await deps.history.page(req.params.id, limit) : undefined;
    if (!page) throw new NotFound(`No listing with id ${req.params.id}.`);
    res.json(page);
  });
  return router;
}
