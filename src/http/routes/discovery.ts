/**
 * Catalog reads (README "API"): the three filtered/ranked reads and one listing by id. Thin: parse
 * and validate the query string, call the read service, send the page.
 */
import { Router, type Request, type Response } from 'express';
import type { CatalogSearch } from '../../search/catalogSearch.js';
import type { ListingById } from '../../search/listingById.js';
import { parseReadRequest, type ReadEndpoint } from '../../search/readRequest.js';
import { PATHS } from '../paths.js';

/**
 * res.json without Express's ETag: pages drift with every write and signal flush, so hashing each
 * body for conditional requests costs CPU on the hottest path and would rarely answer 304.
 */
function sendPage(res: Response, page: unknown): void {
  const body = JSON.stringify(page);
  res.status(200).set({ 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

export function discoveryRoutes(search: CatalogSearch): Router {
  const router = Router();
  const read = (endpoint: ReadEndpoint) => async (req: Request, res: Response) => {
    sendPage(res, await search.read(parseReadRequest(endpoint, req.query as Record<string, unknown>)));
  };
  router.get(PATHS.resources, read('resources'));
  router.get(PATHS.search, read('search'));
  router.get(PATHS.mcpTools, read('mcpTools'));
  return router;
}

export function listingRoutes(byId: ListingById): Router {
  const router = Router();
  router.get(PATHS.resource, async (req, res) => {
    res.json(await byId.read(String(req.params.id)));
  });
  return router;
}
