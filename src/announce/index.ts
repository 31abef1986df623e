/**
 * Announcing as the container wires it: POST /discovery/announce validates what a seller (or
 * anyone) reports and queues it on the probe calendar; the probe decides what is listed.
 */
import type { Config } from '../config/index.js';
import type { CatalogReader } from '../catalog/reader.js';
import type { Probing } from '../probe/index.js';
import { systemClock, type Clock } from '../core/clock.js';
import { AnnounceService } from './announceService.js';

export function buildAnnouncing(config: Config, deps: { probing: Probing; reader: CatalogReader; now?: Clock }): AnnounceService {
  return new AnnounceService(config.announce, deps.probing.store, deps.reader, () => deps.probing.worker.wake(), deps.now ?? systemClock);
}
