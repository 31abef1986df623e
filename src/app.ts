/**
 * The app factory: builds the Express app from injected dependencies, so tests and the server wire
 * the same app with different clients and configuration. Handlers stay thin; they call services.
 */
import compression from 'compression';
import express, { type Express, type Router } from 'express';
import type { Client } from '@elastic/elasticsearch';
import type { RedisClient } from './store/redis/client.js';
import type { Config } from './config/index.js';
import type { Logger } from './logger.js';
import { errorHandler, notFound, requestContext } from './http/middleware.js';
import { jsonBody } from './http/jsonBody.js';
import { healthRoutes } from './http/routes/health.js';
import { unavailableBackendOf } from './store/backendErrors.js';
import { readinessProbe } from './store/readiness.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  elasticsearch: Client;
  redis: RedisClient;
  /** Feature routers mounted at the root, in order (catalog reads, publish, facilitator, ...). */
  routers?: Router[];
}

/** Deepest JSON body accepted: far above any request of this API (a tool schema is bounded at 32). */
export const MAX_BODY_DEPTH = 64;

const isJson = (type: unknown) => typeof type === 'string' && /^application\/(problem\+)?json/.test(type);

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Off unless TRUST_PROXY names the proxies: otherwise anyone could pick their own rate-limit
  // budget with X-Forwarded-For.
  app.set('trust proxy', deps.config.trustProxy.length > 0 ? deps.config.trustProxy : false);
  app.set('query parser', 'simple');
  app.use(requestContext(deps.logger));
  // Large JSON pages only (limit=100 with tool schemas, Bazaar pages): gzip at its fastest level
  // costs gateway CPU that a small page does not repay (docs/catalog-reads.md "Read cache and compression"). Streams (MCP's event
  // streams) are never buffered for it.
  app.use(compression({ threshold: deps.config.compressMinBytes, level: 1, filter: (_req, res) => isJson(res.getHeader('Content-Type')) }));
  // Bodies are JSON everywhere: over the limit 413 payload_too_large, nested deeper than any
  // request of this API needs 400 nesting_too_deep (README "Errors").
  app.use(jsonBody({ limit: deps.config.bodyLimitBytes, maxDepth: MAX_BODY_DEPTH, types: ['application/json', 'application/*+json'] }));
  app.use(healthRoutes({ readiness: readinessProbe(deps.elasticsearch, deps.redis, deps.config.listingsAlias) }));
  for (const router of deps.routers ?? []) app.use(router);
  app.use(notFound);
  app.use(errorHandler({ backendError: unavailableBackendOf }));
  return app;
}
