/**
 * The reach module as the container wires it (issue 25; docs/federation.md): the upstream crawls and
 * their schedule, and the origin announcer that reads sellers' manifests. Both only queue probes
 * through the announce path; what gets listed is decided by the probe alone.
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import type { Stores } from '../store/stores.js';
import type { AnnounceService } from '../announce/announceService.js';
import { systemClock, type Clock } from '../core/clock.js';
import { UpstreamCrawler, type CrawlObserver } from './upstreamCrawler.js';
import { UpstreamPoller } from './upstreamPoller.js';
import { OriginAnnouncer } from './originAnnouncer.js';

export interface Federation {
  poller: UpstreamPoller;
  origins: OriginAnnouncer;
  /** Set by registerFederationMetrics before the workers start. */
  observer: CrawlObserver;
}

export function buildFederation(config: Config, logger: Logger, deps: { stores: Stores; announce: AnnounceService; now?: Clock }): Federation {
  const now = deps.now ?? systemClock;
  const store = deps.stores.redis.federation();
  const settings = config.federation;
  const observer: CrawlObserver = {};
  const relay: CrawlObserver = {
    onPage: (upstream, result) => observer.onPage?.(upstream, result),
    onItems: (upstream, outcome, count) => observer.onItems?.(upstream, outcome, count),
  };
  const crawlers = settings.upstreams.map(
    (upstream) => new UpstreamCrawler(settings, upstream, store, deps.announce, config.announce.probeAllow, logger, now, relay),
  );
  const leaseTtl = 3 * settings.timeoutMs + 60_000;
  const poller = new UpstreamPoller(settings, crawlers, store, (name) => deps.stores.redis.lease(`reach-upstream:${name}`, leaseTtl), logger, now);
  const origins = new OriginAnnouncer(settings, config.announce, store, deps.announce, deps.stores.redis.probes(), now);
  return { poller, origins, observer };
}
