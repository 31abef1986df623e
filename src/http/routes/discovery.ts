/**
 * Catalog reads (SPEC 4.1, 4.2, 4.4). Thin: parse and validate the query string, call the search
 * service, send the page.
 */
import { Router, type Request, type Response } from 'express';
import type { CatalogSearch } from '../../search/catalogSearch.js';
import { parseReadRequest, type ReadEndpoint } from '../../search/readRequest.js';

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
  router.get('/discovery/resources', read('resources'));
  router.get('/discovery/search', read('search'));
  router.get('/mcp/tools', read('mcpTools'));
  return router;
}
