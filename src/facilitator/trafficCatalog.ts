/**
 * Cataloging from traffic, on evidence only (docs/facilitator.md "Evidence before listing"):
 * - a settlement that moved value from a payer other than payTo (the service only reports those)
 *   creates or refreshes the listing of the resource it paid for, through the CatalogWriter (source
 *   `traffic`), when the TrafficGate lets it (address rules, seller-token hosts);
 * - a payment that only passed /verify writes nothing: it asks the announce path to probe the
 *   resource (when nothing is listed for it), and the probe lists it only on the resource's own 402.
 * Accepts entries merge by scheme and network across settlements (kept in Redis, so every instance
 * sees them). A listing a seller published or announced keeps its declared content: traffic only
 * marks it seen. Fire and forget: a failure is logged and never reaches the payer's /verify or
 * /settle response. Shutdown awaits `idle()` before it closes the Redis connection these writes use.
 */
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { AcceptedPayment, HttpListingInput, ListingInput } from '../shapes/listingInput.js';
import { InvalidInput } from '../core/errors.js';
import type { Logger } from '../logger.js';
import type { TrafficAccepts } from '../store/redis/trafficAccepts.js';
import { trafficMayRewrite } from '../store/listingDocument.js';
import type { TrafficGate } from './trafficGate.js';
import type { TrafficSighting } from './trafficSighting.js';
import type { BazaarOutcome } from '../x402/wire.js';

/** The announce path (AnnounceService): validation, dedup per URL and interval, SSRF-safe probe, per-host pacing. */
export interface ProbeScheduler {
  announce(body: { resource: string; method?: string; routeTemplate?: string }): Promise<unknown>;
}

const MAX_REMEMBERED = 10_000;

/** Sightings of one listing written by one write: the latest one's input, each payment option's latest accept. */
interface SightingBatch {
  latest: TrafficSighting;
  accepts: Map<string, AcceptedPayment>;
}

interface QueuedBatch extends SightingBatch {
  /** The `recent` keys answered with this batch's outcome. */
  keys: Set<string>;
  outcome: Promise<BazaarOutcome>;
}

export interface TrafficCatalogerDeps {
  /** The payment options traffic has shown per listing (store/redis/trafficAccepts.ts). */
  accepts: TrafficAccepts;
  writer: () => CatalogWriter | undefined;
  reader: CatalogReader;
  logger: Logger;
  /** Least interval between re-sending an unchanged sighting (TRAFFIC_REFRESH_MS). */
  refreshMs: number;
  gate: Pick<TrafficGate, 'refusal'>;
  probes: ProbeScheduler;
  /**
   * Asks for the listing's signals to be flushed again. Needed after a traffic write: the flush of
   * the settlement that created the listing may have reached the write stream before the listing
   * did, and a signals update of a listing that does not exist yet is dropped.
   */
  reflushSignals(listingIds: string[]): Promise<void>;
}

export class TrafficCataloger {
  /** listing id + payment option -> what was last sent and when, so steady traffic does not rewrite a listing per request. */
  private readonly recent = new Map<string, { fingerprint: string; at: number; outcome: Promise<BazaarOutcome> }>();
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * The last write queued per listing. Writes of one listing run one after another so that the
   * accepts snapshot each one sends reaches the write stream in the order it was taken; otherwise a
   * slower, older snapshot could land last and undo a newer price.
   */
  private readonly tails = new Map<string, Promise<void>>();
  /**
   * Per listing and event, the write queued behind the running one and not started yet. New
   * sightings join it, so the queue of a listing stays short however fast it is paid for. (One
   * write per payment, one after another, fell minutes behind under load, and a stopping instance
   * waited for all of them: lab journal 2026-11-25-sigterm-stop.md.)
   */
  private readonly waiting = new Map<string, QueuedBatch>();

  constructor(private readonly deps: TrafficCatalogerDeps) {}

  /**
   * A settlement that moved value from a payer other than payTo: the listing may be written. The
   * promise says what became of it (the Bazaar outcome the seller is told); the write happens
   * whether or not anyone waits for it.
   */
  settled(sighting: TrafficSighting): Promise<BazaarOutcome> {
    return this.enqueue('settled', sighting, (batch) => this.write(batch));
  }

  /** A payment that passed /verify: no evidence yet, so at most a probe of the resource. */
  verified(sighting: TrafficSighting): Promise<BazaarOutcome> {
    return this.enqueue('verified', sighting, async ({ latest }) => {
      if (await this.listed(latest.listingId)) return { status: 'success' }; // its own re-probes, publishes or settlements keep it
      // Nothing to probe behind an MCP tool.
      if (latest.input.type !== 'http') return rejected('a verification alone lists no MCP tool: its first settlement does');
      return this.scheduleProbe(latest.input);
    });
  }

  private enqueue(event: 'settled' | 'verified', sighting: TrafficSighting, work: (batch: SightingBatch) => Promise<BazaarOutcome>): Promise<BazaarOutcome> {
    // Per payment option: a resource paid by several schemes alternates sightings without rewriting each time.
    const key = `${event} ${sighting.listingId} ${sighting.acceptKey}`;
    const fingerprint = JSON.stringify([sighting.input, sighting.accept]);
    const seen = this.recent.get(key);
    const now = Date.now();
    // A repeat within the refresh interval is answered with what became of the sighting it repeats.
    if (seen && seen.fingerprint === fingerprint && now - seen.at < this.deps.refreshMs) return seen.outcome;
    if (this.recent.size >= MAX_REMEMBERED) this.recent.clear();
    // A write of this listing and event that has not started yet takes this sighting too: steady
    // traffic to one listing queues at most one write behind the running one, never one per payment.
    const batchKey = `${event} ${sighting.listingId}`;
    const waiting = this.waiting.get(batchKey);
    if (waiting) {
      waiting.latest = sighting;
      waiting.accepts.set(sighting.acceptKey, sighting.accept);
      waiting.keys.add(key);
      this.recent.set(key, { fingerprint, at: now, outcome: waiting.outcome });
      return waiting.outcome;
    }
    const batch = { latest: sighting, accepts: new Map([[sighting.acceptKey, sighting.accept]]), keys: new Set([key]) } as QueuedBatch;
    this.waiting.set(batchKey, batch);
    const previous = this.tails.get(sighting.listingId) ?? Promise.resolve();
    const outcome: Promise<BazaarOutcome> = previous
      .then(() => {
        // Started: a sighting from now on waits for the next write (this one's snapshot is taken).
        if (this.waiting.get(batchKey) === batch) this.waiting.delete(batchKey);
        return work(batch);
      })
      .catch((err: unknown) => {
        for (const k of batch.keys) if (this.recent.get(k)?.outcome === outcome) this.recent.delete(k);
        this.deps.logger.warn('traffic cataloging failed', { listingId: sighting.listingId, err: (err as Error).message });
        return rejected('the catalog could not be updated; the next payment retries');
      });
    batch.outcome = outcome;
    const task: Promise<void> = outcome.then(() => {
      this.inFlight.delete(task);
      if (this.tails.get(sighting.listingId) === task) this.tails.delete(sighting.listingId);
    });
    this.recent.set(key, { fingerprint, at: now, outcome });
    this.tails.set(sighting.listingId, task);
    this.inFlight.add(task);
    return outcome;
  }

  /** Resolves when no write is in flight, including writes started while waiting (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async write(batch: SightingBatch): Promise<BazaarOutcome> {
    const sighting = batch.latest;
    const writer = this.deps.writer();
    if (!writer) return rejected('this instance does not write the catalog');
    const existing = await this.deps.reader.get(sighting.listingId);
    // Traffic owns only what traffic created; a stale traffic listing comes back when it is paid for again.
    // This read only saves work: a declared write still in the stream is invisible to it, and the
    // store, applying writes in order, turns the upsert below into a touch then (trafficMayRewrite).
    if (existing && !trafficMayRewrite(existing)) {
      await writer.touch(sighting.listingId);
      // Listed with the content its seller declared (publish or announce); traffic does not rewrite it.
      return existing.removed ? rejected(`the listing was removed (${existing.removedReason ?? 'removed'}); a payment does not revive it`) : { status: 'success' };
    }
    const refusal = await this.deps.gate.refusal(sighting.input);
    if (refusal) {
      this.deps.logger.debug('traffic listing refused', { listingId: sighting.listingId, resource: sighting.input.resource, refusal });
      return rejected(refusal);
    }
    const accepts = await this.deps.accepts.merge(sighting.listingId, batch.accepts, 16);
    const input: ListingInput = { ...sighting.input, ...(sighting.input.type === 'http' ? { accepts } : {}) } as ListingInput;
    await writer.upsert(input, { source: 'traffic' });
    await this.deps.reflushSignals([sighting.listingId]);
    // A listing that is up already is cataloged (this refreshes it); a new one is queued on the catalog
    // write stream and searchable once it is applied.
    return existing && !existing.removed ? { status: 'success' } : { status: 'processing' };
  }

  private async listed(listingId: string): Promise<boolean> {
    const existing = await this.deps.reader.get(listingId);
    return existing !== undefined && !existing.removed;
  }

  private async scheduleProbe(input: HttpListingInput): Promise<BazaarOutcome> {
    const body = { resource: input.resource, method: input.method ?? 'GET', ...(input.routeTemplate ? { routeTemplate: input.routeTemplate } : {}) };
    try {
      await this.deps.probes.announce(body);
      // The probe lists the resource only on its own 402.
      return { status: 'processing' };
    } catch (err) {
      // A URL or template the announce path refuses is simply not probed; the payment is unaffected.
      if (!(err instanceof InvalidInput)) throw err;
      return rejected(`the resource cannot be probed: ${err.message}`);
    }
  }
}

function rejected(rejectedReason: string): BazaarOutcome {
  return { status: 'rejected', rejectedReason: rejectedReason.slice(0, 300) };
}
