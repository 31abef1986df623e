/**
 * Every router of the HTTP API, built from the services the container hands over, in mount order.
 * Adding a route: a handler in the router of its area (src/http/routes/), its path in paths.ts, and
 * the work in one service (docs/architecture.md).
 */
import type { Router } from 'express';
import type { RateLimitSettings } from '../config/rateLimitSettings.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { FacilitatorService } from '../facilitator/service.js';
import type { AnnounceService } from '../announce/announceService.js';
import type { PublishService } from '../publish/publishService.js';
import type { OptOutService } from '../publish/optOut.js';
import type { SellerToken, SellerTokenStore } from '../publish/sellerTokens.js';
import type { CatalogSearch } from '../search/catalogSearch.js';
import type { ListingById } from '../search/listingById.js';
import { edgeRateLimits, rateLimit, type WindowCounter } from './rateLimit.js';
import { announceRoutes } from './routes/announce.js';
import { federationRoutes } from './routes/federation.js';
import type { OriginAnnouncer } from '../federation/originAnnouncer.js';
import type { UpstreamStatus } from '../federation/upstreamPoller.js';
import { discoveryRoutes, listingRoutes } from './routes/discovery.js';
import { facilitatorRoutes } from './routes/facilitator.js';
import { metricsRoutes } from './routes/metrics.js';
import { publishRoutes } from './routes/publish.js';
import { bazaarRoutes } from './routes/bazaar.js';
import { mcpRoutes } from './routes/mcp.js';
import { openApiRoutes } from './routes/openapi.js';
import { discoveryTools } from '../mcp/discoveryTools.js';
import type { BazaarDiscovery } from '../bazaar/bazaarDiscovery.js';
import { webRoutes } from './routes/web.js';
import type { MerchantView } from '../search/merchantView.js';
import { changesRoutes } from './routes/changes.js';
import { settlementsRoutes } from './routes/settlements.js';
import type { SettlementHistory } from '../facilitator/settlementHistory.js';
import type { ChangeFeed } from '../changes/changeFeed.js';
import type { HistoryReader } from '../changes/historyReader.js';

export interface HttpServices {
  search: CatalogSearch;
  merchants: MerchantView;
  listingById: ListingById;
  /** The change feed for mirrors and listing history (src/changes). */
  changes: { feed: ChangeFeed; history: HistoryReader };
  announce: AnnounceService;
  /** Upstream catalogs and origin manifests (src/federation). */
  federation: { origins: OriginAnnouncer; upstreams: { statuses(): Promise<UpstreamStatus[]> } };
  publish: PublishService;
  /** A seller's opt-out of its own HTTP listing. */
  optOut: OptOutService;
  tokens: SellerTokenStore;
  facilitator: FacilitatorService;
  /** The settlements the facilitator sent on chain, by hash and per payTo. */
  settlements: SettlementHistory;
  metrics: Metrics;
  /** The x402 Bazaar-compatible discovery over the same search. */
  bazaar: BazaarDiscovery;
  rateLimits: { counter: WindowCounter; rules: RateLimitSettings; logger: Logger };
}

export function buildRouters(services: HttpServices): Router[] {
  const { counter, rules, logger } = services.rateLimits;
  const announceLimit = rules.announce ? rateLimit({ counter, name: 'announce', rule: rules.announce, logger }) : undefined;
  // The per-client publish limit runs at the edge (edgeRateLimits); the per-token one needs the
  // authenticated token, so it runs in the publish router, after authentication.
  const perToken = rules.publishPerToken
    ? [
        rateLimit({
          counter,
          logger,
          name: 'publish-token',
          rule: rules.publishPerToken,
          key: (req) => (req.res?.locals.sellerToken as SellerToken | undefined)?.id,
        }),
      ]
    : [];
  // Per client address, /verify and /settle each their own budget (the per-payer budget is counted
  // in the service); the Bazaar surface mounts the same router, so /x402/verify shares the budget.
  const facilitatorLimit = (name: string) => (rules.facilitator ? rateLimit({ counter, name, rule: rules.facilitator, logger }) : undefined);
  const facilitator = facilitatorRoutes(services.facilitator, { verify: facilitatorLimit('verify'), settle: facilitatorLimit('settle') });
  return [
    // The metrics router goes first: its middleware times every route after it.
    metricsRoutes(services.metrics),
    // Rate limits next: they guard other areas' routes (reads, publish) mounted after them.
    edgeRateLimits({ counter, rules, logger }),
    discoveryRoutes(services.search, services.merchants),
    listingRoutes(services.listingById),
    changesRoutes(services.changes),
    publishRoutes({ publish: services.publish, optOut: services.optOut, tokens: services.tokens, limits: perToken }),
    announceRoutes({ announce: services.announce, origins: services.federation.origins, ...(announceLimit ? { announceLimit } : {}) }),
    federationRoutes(services.federation.upstreams),
    facilitator,
    settlementsRoutes(services.settlements),
    // The x402-compatible surface: Bazaar discovery over the same search, the same facilitator.
    bazaarRoutes({ discovery: services.bazaar, facilitator }),
    // MCP discovery answers with the same search service and listing lookup as the HTTP reads.
    mcpRoutes(discoveryTools({ search: services.search, listings: services.listingById, merchants: services.merchants })),
    openApiRoutes(),
    webRoutes(),
  ];
}
