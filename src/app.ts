/**
 * The app factory: builds the Express app from injected dependencies, so tests and the server wire
 * the same app with different clients and configuration. Handlers stay thin; they call services.
 */
import express, { type Express, type Router } from 'express';
import type { Client } from '@elastic/elasticsearch';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { errorHandler, notFound, requestContext } from './http/middleware.js';
import { healthRoutes } from './http/routes/health.js';
import { unavailableBackendOf } from './store/backendErrors.js';
import { elasticsearchAnswers } from './store/elasticsearch.js';
import { redisAnswers } from './store/redis.js';

export interface AppDeps {
  config: Config;
  logger: Logger;
  elasticsearch: Client;
  redis: Redis;
  /** Feature routers mounted at the root, in order (catalog reads, publish, facilitator, ...). */
  routers?: Router[];
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'simple');
  app.use(requestContext(deps.logger));
  // Bodies are JSON everywhere; the limit turns an oversized body into 413 payload_too_large.
  app.use(express.json({ limit: deps.config.bodyLimitBytes, type: ['application/json', 'application/*+json'] }));
  const readiness = async () => {
    const [elasticsearch, redis] = await Promise.all([elasticsearchAnswers(deps.elasticsearch), redisAnswers(deps.redis)]);
    return { elasticsearch, redis };
  };
  app.use(healthRoutes(readiness));
  for (const router of deps.routers ?? []) app.use(router);
  app.use(notFound);
  app.use(errorHandler({ backendError: unavailableBackendOf }));
  return app;
}
