/**
 * The x402-compatible surface under /x402 (docs/bazaar.md): an x402 client given
 * `{service}/x402` as its facilitator URL finds there the facilitator endpoints it calls
 * (`/supported`, `/verify`, `/settle`, the same handlers as at the root) and the Bazaar's
 * discovery endpoints. Thin: parse, call the service, send.
 */
import { Router, type Request } from 'express';
import type { FacilitatorService } from '../../facilitator/service.js';
import { BAZAAR_BASE_PATH } from '../../bazaar/bazaar.js';
import type { BazaarDiscovery } from '../../bazaar/bazaarDiscovery.js';
import { parseBazaarList, parseBazaarSearch } from '../../bazaar/bazaarRequest.js';
import { facilitatorRoutes } from './facilitator.js';
import { sendRead } from '../readResponse.js';

/**
 * `facilitator` is the facilitator module's own router (facilitatorRoutes with its per-client
 * limits), so /x402/verify and /verify share one budget and neither path escapes it.
 */
export function bazaarRoutes(deps: { discovery: BazaarDiscovery; facilitator: Router }): Router {
  const surface = Router();
  const query = (req: Request) => req.query as Record<string, unknown>;
  surface.get('/discovery/resources', async (req, res) => {
    sendRead(res, await deps.discovery.list(parseBazaarList(query(req))));
  });
  surface.get('/discovery/search', async (req, res) => {
    sendRead(res, await deps.discovery.search(parseBazaarSearch(query(req))));
  });
  surface.use(deps.facilitator);
  const router = Router();
  router.use(BAZAAR_BASE_PATH, surface);
  return router;
}
