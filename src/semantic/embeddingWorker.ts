/**
 * Computes listing embeddings off the write path: the ingest consumer stores a listing at once,
 * without a vector (text search finds it right away; the kNN part of a search simply lacks it), and
 * this worker later finds listings whose embedding is missing or stale, embeds them in batches and
 * writes each vector with a conditional partial update.
 *
 * Several gateways each run one. Two workers can pick the same listing; that is harmless: each
 * writes onto the version it read (`if_seq_no`/`if_primary_term`), so the second write conflicts
 * and is dropped, and a listing changed while its vector was computed (new text, a signals flush)
 * is never overwritten with a vector of its old text. A conflicted listing is simply picked again
 * in a later round, with its current text.
 */
import type { BackgroundWorker } from '../core/worker.js';
import { PeriodicTask } from '../core/worker.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import type { EmbeddingWriteOutcome, ListingEmbeddingStore, PendingEmbedding } from '../store/elasticsearch/listingEmbeddings.js';
import { UNNAMED_VECTORS_MODEL } from '../config/embeddingModels.js';
import type { Embedder } from './textEmbedder.js';
import { embeddedTextHash, listingText, RETIRED_TEXT_HASHES } from './listingText.js';
import { vectorDigits } from '../core/vectorDigits.js';

export interface EmbeddingWorkerSettings {
  /** Listings read and embedded together (EMBEDDING_BATCH_SIZE). */
  batchSize: number;
  /** Wait between polls once no listing needs an embedding (EMBEDDING_IDLE_MS). */
  idleMs: number;
}

export interface EmbeddingRound {
  /** Listings the search returned as needing an embedding. */
  picked: number;
  written: number;
  /** Changed since they were read (or embedded by another worker first): picked again later. */
  conflicts: number;
}

/**
 * How long the worker remembers a listing it handled (see `handled`): well past the next refresh
 * (1 s in mappings/listings.json), after which the search shows the listing's new version itself.
 * Generous, for a node that refreshes late under load; it only bounds the memory.
 */
const HANDLED_REMEMBERED_MS = 10_000;

export class EmbeddingWorker implements BackgroundWorker {
  readonly name = 'semantic-embedding';
  private readonly task: PeriodicTask;
  private stopping = false;
  /**
   * Listing id -> the version this worker last embedded or found embedded, and when. The search
   * offers a listing again only at a higher version (it changed): until the next refresh it still
   * sees the version before the vector, and the model would run again for nothing.
   */
  private readonly handled = new Map<string, { seqNo: number; at: number }>();
  private inProgress: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: ListingEmbeddingStore,
    private readonly embedder: Embedder,
    private readonly logger: Logger,
    private readonly settings: EmbeddingWorkerSettings,
    private readonly clock: Clock = systemClock,
  ) {
    this.task = new PeriodicTask(() => this.catchUp(), settings.idleMs, (err) =>
      this.logger.warn('embedding worker: round failed, will retry', { error: (err as Error).message }),
    );
  }

  start(): void {
    this.stopping = false;
    this.task.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.task.stop();
  }

  /**
   * Rounds back to back while full batches wait (a backlog), until none is full; returns how many
   * were written. Calls queue behind the one in progress (the schedule's and a caller's, e.g. a
   * test or a benchmark), so when one resolves every listing the search showed at its start has
   * been handled.
   */
  catchUp(): Promise<number> {
    const run = this.inProgress.then(() => this.rounds());
    this.inProgress = run.catch(() => undefined);
    return run;
  }

  private async rounds(): Promise<number> {
    let written = 0;
    for (;;) {
      const round = await this.embedBatch();
      written += round.written;
      if (round.picked < this.settings.batchSize || this.stopping) return written;
    }
  }

  /** One batch: pick listings needing an embedding, embed each alone (src/semantic/textEmbedder.ts), write the vectors in one conditional _bulk. */
  async embedBatch(): Promise<EmbeddingRound> {
    // No model installed (logged once by the embedder): semantic retrieval is off, nothing to look for.
    if (!(await this.embedder.embed([], 'passage'))) return { picked: 0, written: 0, conflicts: 0 };
    const now = this.clock();
    for (const [id, { at }] of this.handled) if (now - at >= HANDLED_REMEMBERED_MS) this.handled.delete(id);
    const versions = new Map([...this.handled].map(([id, { seqNo }]) => [id, seqNo]));
    const { seen, listings } = await this.store.pending(this.settings.batchSize, this.embedder.model, versions, RETIRED_TEXT_HASHES);
    // Embedded now or below (also: embedded by another worker, or conflicted: its newer version is
    // offered once the search sees it).
    for (const { id, seqNo } of seen) this.handled.set(id, { seqNo, at: now });
    if (listings.length === 0) return { picked: seen.length, written: 0, conflicts: 0 };
    const started = performance.now();
    // Vectors stored before vectors named their model all came from one model: a worker running it
    // names them instead of computing them again.
    const unnamed = this.embedder.model === UNNAMED_VECTORS_MODEL ? listings.filter((listing) => listing.unnamed) : [];
    const outcomes = [
      ...(await this.store.name(unnamed, this.embedder.model)),
      ...(await this.embedAndWrite(listings.filter((listing) => !unnamed.includes(listing)))),
    ];
    const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
    // A failed write (Elasticsearch busy or down) stays remembered too: retried once the memory
    // expires, not in a tight loop.
    const round = { picked: seen.length, written: count('written'), conflicts: count('conflict') };
    this.logger.debug('embedding worker: batch embedded', { ...round, named: unnamed.length, failed: count('failed'), ms: Math.round(performance.now() - started) });
    return round;
  }

  /** Runs the model once over the listings' texts and writes each vector onto the version it was read at. */
  private async embedAndWrite(listings: PendingEmbedding[]): Promise<EmbeddingWriteOutcome[]> {
    if (listings.length === 0) return [];
    const vectors = await this.embedder.embed(listings.map((listing) => listingText(listing.doc)), 'passage');
    if (!vectors) return listings.map(() => 'failed');
    return this.store.write(
      listings.map((listing, i) => ({
        id: listing.id,
        seqNo: listing.seqNo,
        primaryTerm: listing.primaryTerm,
        embedding: vectorDigits(vectors[i]!),
        textHash: embeddedTextHash(listing.doc),
        model: this.embedder.model,
      })),
    );
  }
}
