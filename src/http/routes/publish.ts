/** POST /discovery/publish and DELETE /discovery/publish/{id} (docs/sdk.md): thin over PublishService. */
import { Router, type RequestHandler } from 'express';
import type { PublishService } from '../../publish/publishService.js';
import type { SellerTokenStore } from '../../publish/sellerTokens.js';
import { PATHS, resourcePath } from '../paths.js';
import { PUBLISH_CLIENT_HEADER, publishedVia } from '../../shapes/publishClient.js';
import { requireSellerToken, sellerTokenOf } from '../sellerAuth.js';

export interface PublishRouteDeps {
  publish: PublishService;
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

  return router;
}
