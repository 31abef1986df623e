/**
 * Listing lifecycle (docs/lifecycle.md): the change feed for mirrors. Built before the catalog,
 * because the catalog's ingest consumer reports the writes it applied to `observer`.
 */
import type { Router } from 'express';
import type { Clients } from '../container.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AppliedWritesObserver, CatalogOperation } from '../catalog/operations.js';
import type { CatalogReader } from '../catalog/reader.js';
import { lifecycleRoutes } from '../http/routes/lifecycle.js';
import { cursorSecretProvider } from '../search/cursorSecret.js';
import { ChangeLog } from '../store/changeLog.js';
import { ChangeFeed, feedRelevant } from './changeFeed.js';
import { ChangeTokenCodec } from './changeToken.js';
import { ChangeFeedSeeder } from './feedSeeder.js';

export interface Lifecycle {
  observer: AppliedWritesObserver;
  /** Needs the catalog reader, which exists only once the catalog is built with `observer`. */
  attach(reader: CatalogReader): { feed: ChangeFeed; router: Router };
  seeder: ChangeFeedSeeder;
}

export function buildLifecycle(config: Config, logger: Logger, clients: Clients): Lifecycle {
  const log = new ChangeLog(clients.redis, config.redisPrefix);
  const observer: AppliedWritesObserver = {
    async applied(operations: CatalogOperation[]) {
      await log.append(feedRelevant(operations));
    },
  };
  const secret = cursorSecretProvider({ configured: config.cursorSecret, redis: clients.redis, redisPrefix: config.redisPrefix, logger });
  return {
    observer,
    seeder: new ChangeFeedSeeder(log, clients.elasticsearch, config.listingsAlias, logger),
    attach(reader) {
      const feed = new ChangeFeed(log, reader, new ChangeTokenCodec(secret));
      return { feed, router: lifecycleRoutes({ feed }) };
    },
  };
}
