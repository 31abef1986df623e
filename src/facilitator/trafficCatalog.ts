/**
 * Cataloging from traffic: every payment the facilitator accepts creates or refreshes the listing of
 * the resource it pays for, through the CatalogWriter (source `traffic`). Accepts entries merge by
 * scheme and network across requests (kept in Redis, so every instance sees them). A listing a
 * seller published or announced keeps its declared content: traffic only marks it seen. Fire and
 * forget: a failure is logged and never reaches the payer's /verify or /settle response. Shutdown
 * awaits `idle()` before it closes the Redis connection these writes use.
 */
import type { CatalogReader } from '../catalog/reader.js';
import type { CatalogWriter, ListingInput } from '../catalog/writer.js';
import type { Logger } from '../logger.js';
import type { TrafficAccepts } from '../store/trafficAccepts.js';
import type { TrafficSighting } from './trafficSighting.js';

const MAX_REMEMBERED = 10_000;

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

  constructor(
    private readonly accepts: TrafficAccepts,
    private readonly writer: () => CatalogWriter | undefined,
    private readonly reader: CatalogReader,
    private readonly logger: Logger,
    private readonly refreshMs: number,
  ) {}

  observe(sighting: TrafficSighting): void {
    // Per payment option: a resource paid by several schemes alternates sightings without rewriting each time.
    const key = `${sighting.listingId} ${sighting.acceptKey}`;
    const fingerprint = JSON.stringify([sighting.input, sighting.accept]);
    const seen = this.recent.get(key);
    const now = Date.now();
    if (seen && seen.fingerprint === fingerprint && now - seen.at < this.refreshMs) return;
    if (this.recent.size >= MAX_REMEMBERED) this.recent.clear();
    this.recent.set(key, { fingerprint, at: now });
    const previous = this.tails.get(sighting.listingId) ?? Promise.resolve();
    const task: Promise<void> = previous
      .then(() => this.write(sighting))
      .catch((err: unknown) => {
        this.recent.delete(key);
        this.logger.warn('traffic cataloging failed', { listingId: sighting.listingId, err: (err as Error).message });
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
    const writer = this.writer();
    if (!writer) return;
    const existing = await this.reader.get(sighting.listingId);
    // Traffic owns only what traffic created; a stale traffic listing comes back when it is paid for again.
    const ownedByTraffic = !existing || (existing.source === 'traffic' && (!existing.removed || existing.removedReason === 'stale'));
    if (!ownedByTraffic) {
      await writer.touch(sighting.listingId);
      return;
    }
    const accepts = await this.accepts.merge(sighting.listingId, sighting.acceptKey, sighting.accept, 16);
    const input: ListingInput = { ...sighting.input, ...(sighting.input.type === 'http' ? { accepts } : {}) } as ListingInput;
    await writer.upsert(input, { source: 'traffic' });
  }
}
