/**
 * Catalog reads (README "API"): the three filtered/ranked reads and one listing by id. Thin: parse
 * and validate the query string, call the read service, send the page.
 */
import { Router, type Request, type Response } from 'express';
import { sendRead } from '../readResponse.js';
import type { CatalogSearch } from '../../search/catalogSearch.js';
import type { ListingById } from '../../search/listingById.js';
import type { MerchantView } from '../../search/merchantView.js';
import { parseReadRequest } from '../../search/readGrammar.js';
import type { ReadEndpoint } from '../../search/readRequest.js';
import { PATHS } from '../paths.js';

export function discoveryRoutes(search: CatalogSearch, merchants: MerchantView): Router {
  const router = Router();
  const read = (endpoint: ReadEndpoint) => async (req: Request, res: Response) => {
    // Header parameters of the grammar (X-Payer) come from the request's headers.
    sendRead(res, await search.read(parseReadRequest(endpoint, req.query as Record<string, unknown>, { headers: (name) => req.get(name) })));
  };
  router.get(PATHS.resources, read('resources'));
  router.get(PATHS.search, read('search'));
  router.get(PATHS.mcpTools, read('mcpTools'));
  router.get(PATHS.merchant, async (req, res) => {
    sendRead(res, await merchants.read(req.query as Record<string, unknown>));
  });
  return router;
}

export function listingRoutes(byId: ListingById): Router {
  const router = Router();
  router.get(PATHS.resource, async (req, res) => {
    sendRead(res, await byId.read(String(req.params.id)));
  });
  return router;
}
