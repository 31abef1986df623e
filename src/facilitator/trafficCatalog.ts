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
import type { Redis } from 'ioredis';
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter, HttpListingInput, ListingInput } from '../catalog/writer.js';
import { ProblemError } from '../http/problem.js';
import type { Logger } from '../logger.js';
import type { Payment } from '../catalog/listing.js';
import type { TrafficGate } from './trafficGate.js';
import type { TrafficSighting } from './trafficSighting.js';

/** The announce path (AnnounceService): validation, dedup per URL and interval, SSRF-safe probe, per-host pacing. */
export interface ProbeScheduler {
  announce(body: { resource: string; method?: string; routeTemplate?: string }): Promise<unknown>;
}

const MAX_REMEMBERED = 10_000;
const ACCEPTS_TTL_SECONDS = 90 * 24 * 3600;

type Accept = Payment & { extra?: Record<string, unknown> };

export interface TrafficCatalogerDeps {
  redis: Redis;
  prefix: string;
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
  private readonly recent = new Map<string, { fingerprint: string; at: number }>();
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * The last write queued per listing. Writes of one listing run one after another so that the
   * accepts snapshot each one sends reaches the write stream in the order it was taken; otherwise a
   * slower, older snapshot could land last and undo a newer price.
   */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly deps: TrafficCatalogerDeps) {}

  /** A settlement that moved value from a payer other than payTo: the listing may be written. */
  settled(sighting: TrafficSighting): void {
    this.enqueue('settled', sighting, () => this.write(sighting));
  }

  /** A payment that passed /verify: no evidence yet, so at most a probe of the resource. */
  verified(sighting: TrafficSighting): void {
    if (sighting.input.type !== 'http') return; // nothing to probe behind an MCP tool
    this.enqueue('verified', sighting, () => this.scheduleProbe(sighting.listingId, sighting.input as HttpListingInput));
  }

  private enqueue(event: 'settled' | 'verified', sighting: TrafficSighting, work: () => Promise<void>): void {
    // Per payment option: a resource paid by several schemes alternates sightings without rewriting each time.
    const key = `${event} ${sighting.listingId} ${sighting.acceptKey}`;
    const fingerprint = JSON.stringify([sighting.input, sighting.accept]);
    const seen = this.recent.get(key);
    const now = Date.now();
    if (seen && seen.fingerprint === fingerprint && now - seen.at < this.deps.refreshMs) return;
    if (this.recent.size >= MAX_REMEMBERED) this.recent.clear();
    this.recent.set(key, { fingerprint, at: now });
    const previous = this.tails.get(sighting.listingId) ?? Promise.resolve();
    const task: Promise<void> = previous
      .then(work)
      .catch((err: unknown) => {
        this.recent.delete(key);
        this.deps.logger.warn('traffic cataloging failed', { listingId: sighting.listingId, err: (err as Error).message });
      })
      .finally(() => {
        this.inFlight.delete(task);
        if (this.tails.get(sighting.listingId) === task) this.tails.delete(sighting.listingId);
      });
    this.tails.set(sighting.listingId, task);
    this.inFlight.add(task);
  }

  /** Resolves when no write is in flight, including writes started while waiting (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async write(sighting: TrafficSighting): Promise<void> {
    const writer = this.deps.writer();
    if (!writer) return;
    const existing = await this.deps.reader.get(sighting.listingId);
    // Traffic owns only what traffic created; a stale traffic listing comes back when it is paid for again.
    const ownedByTraffic = !existing || (existing.source === 'traffic' && (!existing.removed || existing.removedReason === 'stale'));
    if (!ownedByTraffic) {
      await writer.touch(sighting.listingId);
      return;
    }
    const refusal = await this.deps.gate.refusal(sighting.input);
    if (refusal) {
      this.deps.logger.debug('traffic listing refused', { listingId: sighting.listingId, resource: sighting.input.resource, refusal });
      return;
    }
    const key = `${this.deps.prefix}traffic:accepts:${sighting.listingId}`;
    const results = await this.deps.redis
      .pipeline()
      .hset(key, sighting.acceptKey, JSON.stringify(sighting.accept))
      .expire(key, ACCEPTS_TTL_SECONDS)
      .hgetall(key)
      .exec();
    const all = (results?.[2]?.[1] ?? {}) as Record<string, string>;
    const accepts = Object.keys(all)
      .sort()
      .slice(0, 16)
      .map((k) => JSON.parse(all[k]!) as Accept);
    const input: ListingInput = { ...sighting.input, ...(sighting.input.type === 'http' ? { accepts } : {}) } as ListingInput;
    await writer.upsert(input, { source: 'traffic' });
    await this.deps.reflushSignals([sighting.listingId]);
  }

  private async scheduleProbe(listingId: string, input: HttpListingInput): Promise<void> {
    const existing = await this.deps.reader.get(listingId);
    if (existing && !existing.removed) return; // listed already: its own re-probes or settlements keep it
    const body = { resource: input.resource, method: input.method ?? 'GET', ...(input.routeTemplate ? { routeTemplate: input.routeTemplate } : {}) };
    await this.deps.probes.announce(body).catch((err: unknown) => {
      // A URL or template the announce path refuses is simply not probed; the payment is unaffected.
      if (!(err instanceof ProblemError && err.status === 400)) throw err;
    });
  }
}
