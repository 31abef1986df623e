/**
 * Composition root: turns configuration and clients into the services, their HTTP routers and the
 * background workers. The server and the integration tests both build the service through here.
 */
import type { Router } from 'express';
import { closedAfter, type BackgroundWorker } from './core/worker.js';
import type { Clients } from './store/clients.js';
import { storesFor, type Stores } from './store/stores.js';
import type { Config } from './config/index.js';
import type { Logger } from './logger.js';
import { buildCatalog, type CatalogQueue } from './catalog/index.js';
import type { CatalogReader } from './catalog/reader.js';
import type { CatalogWriter } from './catalog/writer.js';
import { buildRouters } from './http/index.js';
import { buildCatalogSearch, type CatalogReadSide } from './search/index.js';
import { buildPublishing, type Publishing } from './publish/index.js';
import { buildAnnouncing } from './announce/index.js';
import type { AnnounceService } from './announce/announceService.js';
import { buildProbing, type Probing } from './probe/index.js';
import { registerProbeMetrics } from './probe/metrics.js';
import { buildStaleness } from './staleness/index.js';
import { registerStalenessMetrics } from './staleness/metrics.js';
import type { StalenessWorker } from './staleness/stalenessWorker.js';
import { buildFederation, type Federation } from './federation/index.js';
import { registerFederationMetrics } from './federation/metrics.js';
import { registerReadCacheMetrics } from './search/metrics.js';
import { createMetrics, registerQueueGauges, type Metrics } from './metrics.js';
import { ListingById } from './search/listingById.js';
import { buildFacilitator, type Facilitator } from './facilitator/index.js';
import { buildPendingCredits, buildSignals, type SignalTracking } from './signals/index.js';
import { BazaarDiscovery } from './bazaar/bazaarDiscovery.js';
import { buildChanges } from './changes/index.js';
import { buildEmbeddingWorker, type EmbeddingWorker } from './semantic/index.js';
import { HealthEnrollment } from './probe/healthEnrollment.js';
import { systemClock } from './core/clock.js';
import { chainAdapterFor } from './store/chainSettlement.js';

export interface Container {
  routers: Router[];
  workers: BackgroundWorker[];
  /**
   * The same workers in the order a stopping process stops them: the workers of a wave side by
   * side, the waves one after another. Everything that writes into the catalog stream first, the
   * catalog ingest consumer last, so a single instance still applies what they wrote while it
   * stops. Side by side because each step of a stop can wait out a dead Redis primary's
   * redirections: one after another they added up to 10 s.
   */
  stopOrder: BackgroundWorker[][];
  /** The catalog write path every producer uses, the by-id reader and the write queue's stats. */
  catalog: { writer: CatalogWriter; reader: CatalogReader; queue: CatalogQueue };
  /** Catalog reads: the search service and its ranking-tunables cache. */
  search: CatalogReadSide;
  /** Seller tokens and POST/DELETE /discovery/publish. */
  publishing: Publishing;
  /** The probe calendar, the prober and its worker (re-probes are the active health checks). */
  probing: Probing;
  /** POST /discovery/announce and its status. */
  announce: AnnounceService;
  /** Removes listings nobody has seen for STALE_AFTER_DAYS. */
  staleness: StalenessWorker;
  /** Upstream catalogs (crawled on a schedule) and origin manifests: both only queue probes. */
  federation: Federation;
  /** Prometheus registry (GET /metrics); modules register their own metrics on `metrics.registry`. */
  metrics: Metrics;
  /** /supported, /verify, /settle: settled on a chain from the facilitator's key. */
  facilitator: Facilitator;
  /** The listing signals the facilitator records, and their flush into the catalog. */
  signals: SignalTracking;
  /** Gives stored listings their embeddings, off the write path (also in `workers`). */
  embeddings: EmbeddingWorker;
}

export function buildContainer(config: Config, logger: Logger, clients: Clients): Container {
  const stores = storesFor(clients, config);
  const changeFeed = buildChanges(config, logger, stores);
  // Applied writes feed the change log and, without holding writes up, the health schedule and the
  // settlements that waited for the probe of the resource they named.
  const enrollment = new HealthEnrollment(stores.redis.probes(), config.announce, systemClock);
  const credits = buildPendingCredits(config, logger, stores.redis);
  const catalog = buildCatalog(config, logger, stores, {
    applied: async (writes) => {
      await changeFeed.observer.applied(writes);
      await enrollment.applied(writes).catch((err: Error) => logger.warn('health enrollment failed', { err: err.message }));
      await credits.applied(writes);
    },
  });
  const changes = changeFeed.attach(catalog.reader);
  const metrics = createMetrics();
  const search = buildCatalogSearch(config, logger, stores, { onCacheOutcome: registerReadCacheMetrics(metrics) });
  const embeddings = buildEmbeddingWorker(config, logger, stores);
  const publishing = buildPublishing(config, { stores, writer: catalog.writer, reader: catalog.reader });
  const probing = buildProbing(config, logger, { stores, writer: catalog.writer });
  const announce = buildAnnouncing(config, { probing, reader: catalog.reader });
  const staleness = buildStaleness(config, logger, { stores, writer: catalog.writer });
  registerQueueGauges(metrics, () => catalog.queue.stats());
  registerProbeMetrics(metrics, probing);
  registerStalenessMetrics(metrics, staleness);
  const federation = buildFederation(config, logger, { stores, announce });
  registerFederationMetrics(metrics, federation);
  const payments = buildPayments(config, logger, {
    stores,
    writer: catalog.writer,
    reader: catalog.reader,
    metrics,
    probes: announce,
    outcomes: search.outcomes.recorder,
  });
  const { facilitator, signals } = payments;
  const routers = buildRouters({
    search: search.search,
    merchants: search.merchants,
    listingById: new ListingById(catalog.reader, (id) => announce.listingIdFor(id)),
    changes,
    announce,
    federation: { origins: federation.origins, upstreams: federation.poller },
    publish: publishing.service,
    optOut: publishing.optOut,
    tokens: publishing.tokens,
    facilitator: facilitator.service,
    settlements: facilitator.settlements,
    metrics,
    bazaar: new BazaarDiscovery(search.search),
    rateLimits: { counter: stores.redis.rateLimitCounter(), rules: config.rateLimits, logger },
  });
  const producers = [catalog.keeper, embeddings, changeFeed.seeder, search.ranking, probing.worker, staleness, federation.poller, ...payments.workers];
  return {
    routers,
    workers: [catalog.worker, ...producers],
    stopOrder: [producers, [catalog.worker]],
    catalog: { writer: catalog.writer, reader: catalog.reader, queue: catalog.queue },
    search,
    publishing,
    probing,
    announce,
    staleness,
    federation,
    metrics,
    facilitator,
    signals,
    embeddings,
  };
}

type PaymentDeps = Omit<Parameters<typeof buildFacilitator>[2], 'redis' | 'signals'> & { stores: Stores };

/**
 * The facilitator and the signals it feeds, on one Redis connection of their own with
 * auto-pipelining (store/redis/hotPathConnection.ts), and the workers to stop: the signal flusher,
 * then the connection's closer, which waits for everything that uses the connection (the
 * flusher's pass in progress, which puts its ids back on failure, and every traffic write started
 * so far), so stopping the workers in any order cannot quit it under them.
 */
export function buildPayments(config: Config, logger: Logger, deps: PaymentDeps): { facilitator: Facilitator; signals: SignalTracking; workers: BackgroundWorker[] } {
  const { stores, ...rest } = deps;
  const connection = stores.redis.hotPath((err) => logger.debug('facilitator redis connection error', { err: err.message }));
  const signals = buildSignals(config, logger, { redis: connection.stores, writer: deps.writer });
  const chain = chainAdapterFor(config, connection.stores);
  const facilitator = buildFacilitator(config, logger, {
    ...rest,
    redis: connection.stores,
    signals: signals.recorder,
    ...(chain ? { chain } : {}),
  });
  const closer = closedAfter(connection.closer, [() => signals.flusher.stop(), () => facilitator.cataloger.idle()]);
  return { facilitator, signals, workers: [...signals.workers, closer] };
}
