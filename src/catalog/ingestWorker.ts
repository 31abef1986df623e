/**
 * The ingest consumer: reads the durable write stream as a member of a consumer group, applies each
 * batch to Elasticsearch with one `_bulk`, and acknowledges an entry only once Elasticsearch accepted
 * it. Elasticsearch down: back off and retry without counting; an entry Elasticsearch rejects is
 * retried and dead-lettered with its reason after `maxAttempts`. Entries a crashed consumer held are
 * taken over after `claimIdleMs`.
 */
import type { Redis } from 'ioredis';
import type { BackgroundWorker } from '../container.js';
import type { Logger } from '../logger.js';
import type { ListingStore } from '../store/listingStore.js';
import { consumerName, type StreamEntry, type WriteStream } from '../store/writeStream.js';
import { decodeOperation, type CatalogOperation } from './operations.js';

export interface IngestOptions {
  batchSize: number;
  blockMs: number;
  maxAttempts: number;
  claimIdleMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export class IngestWorker implements BackgroundWorker {
  readonly name = 'catalog-ingest';
  private readonly consumer = consumerName();
  private running?: Promise<void>;
  private stopping = false;
  private wake?: () => void;
  private connection?: Redis;
  private lastClaimAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly stream: WriteStream,
    private readonly store: ListingStore,
    private readonly logger: Logger,
    private readonly options: IngestOptions,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(): void {
    if (this.running) return;
    this.stopping = false;
    // Blocking reads get their own connection so they never hold up other commands.
    this.connection = this.redis.duplicate();
    this.connection.on('error', (err: Error) => this.logger.debug('ingest connection error', { error: err.message }));
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
    this.running = undefined;
    this.connection?.disconnect();
    this.connection = undefined;
  }

  private async loop(): Promise<void> {
    let retry: StreamEntry[] = [];
    let backoff = this.options.retryBaseMs;
    while (!this.stopping) {
      try {
        await this.stream.ensureGroup();
        const batch = retry.length > 0 ? retry : await this.nextBatch();
        if (batch.length === 0) continue;
        retry = await this.process(batch);
        if (retry.length > 0) {
          await this.pause(backoff);
          backoff = Math.min(backoff * 2, this.options.retryMaxMs);
        } else backoff = this.options.retryBaseMs;
      } catch (err) {
        if (this.stopping) break;
        if (String((err as Error).message).includes('NOGROUP')) this.stream.forgetGroup();
        this.logger.warn('catalog ingest: iteration failed, backing off', { error: (err as Error).message, backoffMs: backoff });
        await this.pause(backoff);
        backoff = Math.min(backoff * 2, this.options.retryMaxMs);
      }
    }
  }

  private async nextBatch(): Promise<StreamEntry[]> {
    const at = this.now().getTime();
    if (at - this.lastClaimAt >= Math.min(this.options.claimIdleMs, 1000)) {
      this.lastClaimAt = at;
      const claimed = await this.stream.claimAbandoned(this.consumer, this.options.claimIdleMs, this.options.batchSize);
      if (claimed.length > 0) {
        this.logger.info('catalog ingest: took over abandoned writes', { count: claimed.length });
        return claimed;
      }
    }
    if (!this.connection) return [];
    return this.stream.readNew(this.connection, this.consumer, this.options.batchSize, this.options.blockMs);
  }

  /** Applies a batch; returns the entries to try again after a backoff. */
  private async process(batch: StreamEntry[]): Promise<StreamEntry[]> {
    const decoded: Array<{ entry: StreamEntry; operation: CatalogOperation }> = [];
    for (const entry of batch) {
      const operation = decodeOperation(entry.payload);
      if (operation) decoded.push({ entry, operation });
      else await this.stream.deadLetter(entry, 'unreadable entry: not a catalog write operation', 1, this.now());
    }
    const outcomes = await this.store.apply(decoded.map((d) => d.operation));
    const done: string[] = [];
    const retry: StreamEntry[] = [];
    let transient: string | undefined;
    for (let i = 0; i < decoded.length; i++) {
      const { entry, operation } = decoded[i]!;
      const outcome = outcomes[i] ?? { status: 'failed', reason: 'no outcome' };
      if (outcome.status === 'applied' || outcome.status === 'dropped') done.push(entry.entryId);
      else if (outcome.status === 'retry') {
        transient = outcome.reason;
        retry.push(entry);
      } else {
        const attempts = await this.stream.recordFailure(entry.entryId);
        if (attempts >= this.options.maxAttempts) {
          await this.stream.deadLetter(entry, outcome.reason, attempts, this.now());
          if (operation.op === 'upsert') await this.stream.removeLive([operation.id]);
          this.logger.error('catalog ingest: write dead-lettered', { id: operation.id, op: operation.op, reason: outcome.reason, attempts });
        } else retry.push(entry);
      }
    }
    await this.stream.ack(done);
    if (transient) this.logger.warn('catalog ingest: Elasticsearch unavailable, will retry', { reason: transient, entries: retry.length });
    return retry;
  }

  private pause(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
