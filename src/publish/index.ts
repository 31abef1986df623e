/**
 * The publishing module as the container wires it: seller tokens, the publish service and its
 * routes (bearer auth, then the per-token rate limit).
 */
import type { Router } from 'express';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import { rateLimit } from '../http/rateLimit.js';
import { publishRoutes } from '../http/routes/publish.js';
import { BoundHosts } from './boundHosts.js';
import { PublishService } from './publishService.js';
import { SellerTokenStore, type SellerToken } from './sellerTokens.js';

export interface Publishing {
  tokens: SellerTokenStore;
  /** Hosts some seller token is bound to (traffic never lists an MCP tool there). */
  boundHosts: BoundHosts;
  service: PublishService;
  router: Router;
}

export function buildPublishing(
  config: Config,
  logger: Logger,
  deps: { redis: Redis; writer: CatalogWriter; reader: CatalogReader },
): Publishing {
  const tokens = new SellerTokenStore(deps.redis, config.redisPrefix);
  const service = new PublishService({ writer: deps.writer, lookup: deps.reader, redis: deps.redis, redisPrefix: config.redisPrefix });
  // The per-client publish limit runs at the edge (edgeRateLimits); the per-token one needs the
  // authenticated token, so it runs here, after authentication.
  const perToken = config.rateLimits.publishPerToken;
  const byToken = perToken
    ? [
        rateLimit({
          redis: deps.redis,
          prefix: config.redisPrefix,
          logger,
          name: 'publish-token',
          rule: perToken,
          key: (req) => (req.res?.locals.sellerToken as SellerToken | undefined)?.id,
        }),
      ]
    : [];
  const router = publishRoutes({ publish: service, tokens, limits: byToken });
  return { tokens, boundHosts: new BoundHosts(tokens), service, router };
}

export { SellerTokenStore, type SellerToken } from './sellerTokens.js';
export { PublishService } from './publishService.js';
export { BoundHosts } from './boundHosts.js';
