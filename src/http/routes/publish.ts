/**
 * POST /discovery/publish and DELETE /discovery/publish/{id} (docs/sdk.md): thin over PublishService;
 * POST and DELETE /discovery/optout (a seller's opt-out of its own HTTP listing): thin over OptOutService.
 */
import { Router, type Request, type RequestHandler } from 'express';
import type { PublishService } from '../../publish/publishService.js';
import type { OptOutService } from '../../publish/optOut.js';
import type { SellerTokenStore } from '../../publish/sellerTokens.js';
import { PATHS, resourcePath } from '../paths.js';
import { PUBLISH_CLIENT_HEADER, publishedVia } from '../../shapes/publishClient.js';
import { requireSellerToken, sellerTokenOf } from '../sellerAuth.js';

export interface PublishRouteDeps {
  publish: PublishService;
  optOut: OptOutService;
  tokens: SellerTokenStore;
  /** Rate limiters that run after authentication (so they can key on the token). */
  limits?: RequestHandler[];
}

export function publishRoutes(deps: PublishRouteDeps): Router {
  const router = Router();
  const authenticated = [requireSellerToken(deps.tokens), ...(deps.limits ?? [])];

  router.post(PATHS.publish, ...authenticated, async (req, res) => {
    const via = publishedVia(req.get(PUBLISH_CLIENT_HEADER));
    const { created, listing } = await deps.publish.publish(sellerTokenOf(res), req.body, via);
    res.status(created ? 201 : 200).location(resourcePath(listing.id)).json(listing);
  });

  router.delete(PATHS.unpublish, ...authenticated, async (req, res) => {
    await deps.publish.unpublish(sellerTokenOf(res), String(req.params.id));
    res.status(204).end();
  });

  // The seller proves the listing is its own with a seller token or a payTo signature (in the body).
  router.post(PATHS.optOut, async (req, res) => {
    res.json(await deps.optOut.optOut(req.body, bearerOf(req)));
  });
  router.delete(PATHS.optOut, async (req, res) => {
    res.json(await deps.optOut.lift(req.body, bearerOf(req)));
  });

  return router;
}

/** The bearer token sent, if any (the opt-out may be proved by a signature instead). */
function bearerOf(req: Request): string | undefined {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(req.header('authorization') ?? '');
  return match ? match[1] : undefined;
}
