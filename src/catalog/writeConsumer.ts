/**
 * The ingest consumer: reads the durable write stream as a member of a consumer group, applies each
 * batch to Elasticsearch with one `_bulk`, and acknowledges an entry only once Elasticsearch accepted
 * it. Elasticsearch down: back off and retry without counting; an entry Elasticsearch rejects is
 * retried and dead-lettered with its reason after `maxAttempts`. Entries a crashed consumer held are
 * taken over once its heartbeat expires (a few seconds), entries a Redis failover left pending on
 * this live consumer (a lost delivery or acknowledgement) at the next claim check (a second),
 * entries a live but stuck one holds after `claimIdleMs`.
 */
import type { CatalogIngestSettings } from '../config/index.js';
import type { BackgroundWorker } from '../core/worker.js';
import type { Logger } from '../logger.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { ListingStore } from '../store/elasticsearch/listingStore.js';
import { consumerName, type StreamEntry, type StreamReader, type WriteStream } from '../store/redis/writeStream.js';
import { decodeOperation, isConflictRetry, type AppliedWrite, type AppliedWritesObserver, type CatalogOperation } from '../store/catalogOperations.js';
import { embeddedTextHash } from '../semantic/listingText.js';

export type IngestOptions = CatalogIngestSettings;

/** Epoch ms of the oldest entry's XADD (a stream entry id starts with it). */
function oldestEntryTime(batch: StreamEntry[]): number {
  return Math.min(...batch.map((entry) => Number(entry.entryId.split('-')[0])));
}

/** Each consumer refreshes its heartbeat this often; without one for HEARTBEAT_TTL_MS it counts as dead. */
const HEARTBEAT_MS = 1000;
const HEARTBEAT_TTL_MS = 3 * HEARTBEAT_MS;
/** A blocking read may take this long past its block time (a Cluster failover's redirections) before it counts as stuck. */
const READ_GRACE_MS = 5000;

export class WriteConsumer implements BackgroundWorker {
  readonly name = 'catalog-ingest';
  private readonly consumer = consumerName();
  private running?: Promise<void>;
  private stopping = false;
  /** Which start() a loop belongs to: a loop a stop left running ends when the worker starts again. */
  private generation = 0;
  private wake?: () => void;
  private reader?: StreamReader;
  private heartbeat?: NodeJS.Timeout;
  private lastClaimAt = 0;
  /** Entry ids read and not yet acknowledged or dead-lettered by this worker. */
  private readonly held = new Set<string>();

  constructor(
    private readonly stream: WriteStream,
    private readonly store: ListingStore,
    private readonly logger: Logger,
    private readonly options: IngestOptions,
    private readonly observer: AppliedWritesObserver,
    private readonly clock: Clock = systemClock,
    /** Called when Elasticsearch says the index is gone; resolves once it is back (IndexKeeper). */
    private readonly repairIndex: () => Promise<void> = async () => {},
  ) {}

  start(): void {
    if (this.running) return;
    this.stopping = false;
    const generation = ++this.generation;
    // Blocking reads get their own connection so they never hold up other commands.
    this.reader = this.openReader();
    // A timer of its own: a loop waiting on a slow Elasticsearch is alive all the same.
    const beat = () => void this.stream.heartbeat(this.consumer, HEARTBEAT_TTL_MS).catch(() => undefined);
    beat();
    this.heartbeat = setInterval(beat, HEARTBEAT_MS);
    this.heartbeat.unref();
    this.running = this.loop(generation);
  }

  /**
   * Waits up to `stopWaitMs` for the batches in flight (an Elasticsearch `_bulk` can take its whole
   * request timeout, a Redis call on a dead Cluster primary its redirections). Past that it stops
   * anyway: those entries stay unacknowledged in the stream, and with this consumer's heartbeat
   * gone another consumer takes them over within a second or two (or this one at its next start).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      (this.running ?? Promise.resolve()).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.options.stopWaitMs))),
    ]);
    clearTimeout(timer);
    this.running = undefined;
    clearInterval(this.heartbeat);
    if (finished) await this.stream.removeConsumerIfIdle(this.consumer).catch(() => undefined);
    else this.logger.warn('catalog ingest: stopped with writes still being applied; they stay in the stream for another consumer', { entries: this.held.size, waitedMs: this.options.stopWaitMs });
    await this.stream.forgetHeartbeat(this.consumer).catch(() => undefined);
    this.reader?.close();
    this.reader = undefined;
  }

  /**
   * Up to `concurrency` batches are applied at once (Elasticsearch works while the next batch is
   * read and prepared), but never two that touch the same listing, so writes to one listing apply
   * in stream order. Entries to retry go first into the next batch, after everything in flight;
   * that is checked after waiting for the overlapping batches, since one of them can fail meanwhile.
   */
  private async loop(generation: number): Promise<void> {
    const inflight = new Map<Promise<void>, Set<string>>();
    let retry: StreamEntry[] = [];
    let backoff = this.options.retryBaseMs;
    let degraded = false;
    const settle = async () => {
      await Promise.allSettled([...inflight.keys()]);
    };
    while (!this.stopping && generation === this.generation) {
      try {
        await this.stream.ensureGroup();
        // After a failure, one batch at a time until one succeeds: an outage must not pull the
        // whole stream into memory.
        if (degraded) await settle();
        let batch: StreamEntry[];
        if (retry.length > 0) {
          await settle();
          await this.pause(backoff);
          backoff = Math.min(backoff * 2, this.options.retryMaxMs);
          [batch, retry] = [retry, []];
        } else batch = await this.nextBatch();
        if (batch.length === 0) continue;
        let ids = new Set(batch.map((e) => e.listingId ?? e.entryId));
        const overlaps = () => [...inflight.values()].some((held) => [...ids].some((id) => held.has(id)));
        while (inflight.size > 0 && (inflight.size >= this.options.concurrency || overlaps())) await Promise.race(inflight.keys());
        if (retry.length > 0) {
          // A batch failed while this one was read or waited for it: its entries are older than
          // this batch's, so they go first (after everything in flight), keeping stream order.
          await settle();
          [batch, retry] = [[...retry, ...batch], []];
          ids = new Set(batch.map((e) => e.listingId ?? e.entryId));
        }
        let kept: StreamEntry[] = [];
        const run: Promise<void> = this.process(batch)
          .then(({ again, unavailable }) => {
            degraded = again.length > 0;
            kept = again;
            // Only version conflicts (another writer was first): Elasticsearch is fine, retry with
            // fresh state after the shortest pause instead of backing off further each time.
            if (!unavailable) backoff = this.options.retryBaseMs;
          })
          .catch((err: Error) => {
            degraded = true;
            kept = batch;
            this.logger.warn('catalog ingest: batch failed, will retry', { error: err.message });
          })
          .finally(() => {
            inflight.delete(run);
            // Entries kept for a retry stay held, so a claim never hands them to this worker twice.
            const keptIds = new Set(kept.map((e) => e.entryId));
            for (const entry of batch) if (!keptIds.has(entry.entryId)) this.held.delete(entry.entryId);
            retry.push(...kept);
          });
        for (const entry of batch) this.held.add(entry.entryId);
        inflight.set(run, ids);
      } catch (err) {
        if (this.stopping) break;
        if (String((err as Error).message).includes('NOGROUP')) this.stream.forgetGroup();
        this.logger.warn('catalog ingest: iteration failed, backing off', { error: (err as Error).message, backoffMs: backoff });
        await this.pause(backoff);
        backoff = Math.min(backoff * 2, this.options.retryMaxMs);
      }
    }
    await settle();
  }

  private async nextBatch(): Promise<StreamEntry[]> {
    const at = this.clock();
    if (at - this.lastClaimAt >= Math.min(this.options.claimIdleMs, 1000)) {
      this.lastClaimAt = at;
      const orphaned = await this.stream.claimFromDeadConsumers(this.consumer, HEARTBEAT_MS, this.options.batchSize);
      if (orphaned.length > 0) {
        this.logger.info('catalog ingest: took over the writes of a consumer that stopped', { count: orphaned.length });
        return orphaned;
      }
      // After a Redis failover: deliveries and acknowledgements the promoted replica never saw.
      const unknown = await this.stream.reclaimUnknownOwn(this.consumer, this.held, HEARTBEAT_MS, this.options.batchSize);
      if (unknown.length > 0) {
        this.logger.info('catalog ingest: took back writes whose delivery or acknowledgement Redis lost (failover)', { count: unknown.length });
        return unknown;
      }
      const claimed = await this.stream.claimAbandoned(this.consumer, this.options.claimIdleMs, this.options.batchSize);
      // Entries this worker holds itself (a long retry) are not "abandoned".
      const abandoned = claimed.filter((e) => !this.held.has(e.entryId));
      if (abandoned.length > 0) {
        this.logger.info('catalog ingest: took over abandoned writes', { count: abandoned.length });
        return abandoned;
      }
    }
    if (!this.reader) return [];
    return this.readWithDeadline(this.reader);
  }

  /**
   * A blocking read that does not answer within its block time plus READ_GRACE_MS is given up and
   * its connection replaced (one left waiting on a primary that died would stall this consumer, its
   * claims included). Entries that read delivered after all are taken back by reclaimUnknownOwn.
   */
  private async readWithDeadline(reader: StreamReader): Promise<StreamEntry[]> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.options.blockMs + READ_GRACE_MS)));
    const read = reader.readNew(this.consumer, this.options.batchSize, this.options.blockMs);
    try {
      const result = await Promise.race([read, deadline]);
      if (result !== 'late') return result;
    } finally {
      clearTimeout(timer);
    }
    read.catch(() => undefined);
    this.logger.warn('catalog ingest: a stream read did not answer; reconnecting the reader', { waitedMs: this.options.blockMs + READ_GRACE_MS });
    if (this.reader === reader) {
      reader.close();
      this.reader = this.openReader();
    }
    return [];
  }

  private openReader(): StreamReader {
    return this.stream.openReader((err) => this.logger.debug('ingest connection error', { error: err.message }));
  }

  /**
   * Applies a batch; returns the entries to try again after a backoff, and whether any of them is
   * waiting for Elasticsearch (not only for a version conflict).
   */
  private async process(batch: StreamEntry[]): Promise<{ again: StreamEntry[]; unavailable: boolean }> {
    const decoded: Array<{ entry: StreamEntry; operation: CatalogOperation }> = [];
    for (const entry of batch) {
      const operation = decodeOperation(entry.payload);
      if (operation?.op === 'upsert') {
        operation.probablyNew = entry.probablyNew === true;
        // No vector here (the model would cut ingest about 10x): the store keeps the stored one
        // while the text is unchanged, and src/semantic/embeddingWorker.ts computes the others.
        operation.textHash = embeddedTextHash(operation.doc);
        operation.encodedLength = entry.payload.length;
      }
      if (operation) decoded.push({ entry, operation });
      else await this.stream.deadLetter(entry, 'unreadable entry: not a catalog write operation', 1, new Date(this.clock()));
    }
    const started = performance.now();
    const outcomes = await this.store.apply(decoded.map((d) => d.operation));
    const appliedAt = performance.now();
    const done: string[] = [];
    const applied: AppliedWrite[] = [];
    const retry: StreamEntry[] = [];
    let transient: string | undefined;
    let unavailable = false;
    for (let i = 0; i < decoded.length; i++) {
      const { entry, operation } = decoded[i]!;
      const outcome = outcomes[i] ?? { status: 'failed', reason: 'no outcome' };
      if (outcome.status === 'applied') applied.push({ entryId: entry.entryId, operation: outcome.as ?? operation });
      if (outcome.status === 'applied' || outcome.status === 'dropped') done.push(entry.entryId);
      else if (outcome.status === 'retry') {
        transient = outcome.reason;
        if (!isConflictRetry(outcome.reason)) unavailable = true;
        retry.push(entry);
      } else {
        const attempts = await this.stream.recordFailure(entry.entryId);
        if (attempts >= this.options.maxAttempts) {
          await this.stream.deadLetter(entry, outcome.reason, attempts, new Date(this.clock()));
          // Never stored: not live (a later correct write reports created). An older version stays live.
          if (operation.op === 'upsert' && !(await this.store.get(operation.id))) await this.stream.removeLive([operation.id]);
          this.logger.error('catalog ingest: write dead-lettered', { id: operation.id, op: operation.op, reason: outcome.reason, attempts });
        } else {
          unavailable = true;
          retry.push(entry);
        }
      }
    }
    // Throws (the batch is retried, re-applying is idempotent) rather than acknowledging unobserved writes.
    if (applied.length > 0) await this.observer.applied(applied);
    const observedAt = performance.now();
    await this.stream.ack(done);
    // Where a write's time goes (LOG_LEVEL=debug): queued = from its XADD to this batch's start.
    this.logger.debug('catalog ingest: batch applied', {
      entries: decoded.length,
      queuedMs: Math.round(this.clock() - (performance.now() - started) - oldestEntryTime(batch)),
      applyMs: Math.round(appliedAt - started),
      observeMs: Math.round(observedAt - appliedAt),
      ackMs: Math.round(performance.now() - observedAt),
    });
    if (transient?.includes('index_not_found_exception')) {
      await this.repairIndex().catch((err: Error) => this.logger.warn('catalog ingest: re-creating the listing index failed', { error: err.message }));
    }
    if (transient) this.logger.warn('catalog ingest: Elasticsearch unavailable or a write conflicted, will retry', { reason: transient, entries: retry.length });
    return { again: retry, unavailable };
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
