/**
 * A second gateway's probing, announce and staleness sweep on the same Redis and index as a
 * harness, driven by the test's clock: what tests of re-probes, pacing and staleness run beside
 * the harness's own (real-clock) workers.
 */
import type { Config } from '../../src/config/index.js';
import type { Logger } from '../../src/logger.js';
import type { CatalogReader } from '../../src/catalog/reader.js';
import type { CatalogWriter } from '../../src/catalog/writer.js';
import type { Stores } from '../../src/store/stores.js';
import type { Clock } from '../../src/core/clock.js';
import { buildProbing } from '../../src/probe/index.js';
import { buildAnnouncing } from '../../src/announce/index.js';
import { buildStaleness } from '../../src/staleness/index.js';

export function probingGateway(config: Config, logger: Logger, deps: { stores: Stores; writer: CatalogWriter; reader: CatalogReader; now: Clock }) {
  const probing = buildProbing(config, logger, deps);
  return {
    service: buildAnnouncing(config, { probing, reader: deps.reader, now: deps.now }),
    store: probing.store,
    prober: probing.prober,
    probeWorker: probing.worker,
    staleness: buildStaleness(config, logger, deps),
  };
}

export type ProbingGateway = ReturnType<typeof probingGateway>;
