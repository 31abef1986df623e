/**
 * Catalog reads (SPEC 4.1, 4.2, 4.4). Thin: parse and validate the query string, call the search
 * service, send the page.
 */
import { Router, type Request } from 'express';
import type { CatalogSearch } from '../../search/catalogSearch.js';
import { parseReadRequest, type ReadEndpoint } from '../../search/readRequest.js';

export function discoveryRoutes(search: CatalogSearch): Router {
  const router = Router();
  const read = (endpoint: ReadEndpoint) => async (req: Request, res: import('express').Response) => {
    res.json(await search.read(parseReadRequest(endpoint, req.query as Record<string, unknown>)));
  };
  router.get('/discovery/resources', read('resources'));
  router.get('/discovery/search', read('search'));
  router.get('/mcp/tools', read('mcpTools'));
  return router;
}
