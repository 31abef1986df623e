/**
 * The catalog module as the container wires it: the durable writer, the by-id reader, the write
 * queue's stats (for /metrics) and the ingest consumer.
 */
import type { Config } from '../config/index.js';
import type { Logger } from '../logger.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { Stores } from '../store/stores.js';
import type { DeadLetter, QueueStats } from '../store/redis/writeStream.js';
import { DurableCatalogWriter } from './durableWriter.js';
import { CHECK_INTERVAL_MS, IndexKeeper } from './indexKeeper.js';
import { leaseTtlFor } from '../store/redis/lease.js';
import { WriteConsumer } from './writeConsumer.js';
import type { AppliedWritesObserver } from '../store/catalogOperations.js';
import { StoreCatalogReader, type CatalogReader } from './reader.js';
import type { CatalogWriter } from './writer.js';

export interface CatalogQueue {
  /** `{ depth, pending, deadLetters }` of the durable write stream. */
  stats(): Promise<QueueStats>;
  /** The oldest dead-lettered writes with their reasons (operators, tests). */
  deadLetters(count?: number): Promise<DeadLetter[]>;
  /** Moves dead letters back to the write stream once their cause is fixed; returns how many. */
  requeueDeadLetters(count?: number): Promise<number>;
}

export interface Catalog {
  writer: CatalogWriter;
  reader: CatalogReader;
  queue: CatalogQueue;
  worker: WriteConsumer;
  /** Re-creates the listing index and alias when they disappear at run time. */
  keeper: IndexKeeper;
}

export function buildCatalog(
  config: Config,
  logger: Logger,
  stores: Stores,
  /**
   * Required: every process that applies writes (server, import, demo) must report them, or the
   * change feed and listing history miss them (src/changes `changeRecorder`).
   */
  observer: AppliedWritesObserver,
  clock: Clock = systemClock,
): Catalog {
  const stream = stores.redis.writeStream();
  const store = stores.elasticsearch.listings();
  const keeperLease = stores.redis.lease('listing-index-keeper', leaseTtlFor(CHECK_INTERVAL_MS));
  const keeper = new IndexKeeper(stores.elasticsearch.listingIndexGuard(), logger, keeperLease);
  const worker = new WriteConsumer(stream, store, logger, config.catalogIngest, observer, clock, () => keeper.repair());
  return {
    writer: new DurableCatalogWriter(stream, clock, stores.redis.optOuts()),
    reader: new StoreCatalogReader(store),
    queue: {
      stats: () => stream.stats(),
      deadLetters: (count) => stream.deadLetters(count),
      requeueDeadLetters: (count) => stream.requeueDeadLetters(count),
    },
    worker,
    keeper,
  };
}

export type { CatalogReader } from './reader.js';
export type { CatalogWriter } from './writer.js';
export type { AppliedWrite, AppliedWritesObserver, CatalogOperation } from '../store/catalogOperations.js';
export { InvalidListingError, validateListingInput } from './validation.js';
export { toCaip2Network } from '../x402/networks.js';
