/**
 * What traffic may do to the catalog (docs/facilitator.md "Evidence before listing"; issue 43): it
 * never writes a listing's content, `payTo` or accepts. Those come only from a probe of the
 * resource, its seller's publish or the operator's import.
 * - A settlement that paid a listed resource's seller marks the listing seen (`lastSeen`, which
 *   keeps it from going stale), at most once per TRAFFIC_REFRESH_MS per listing and process.
 * - A /verify or /settle naming an HTTP resource that is not listed queues its probe through the
 *   announce path (the same validation, dedup per URL and interval, SSRF rules and pacing per
 *   resolved address as POST /discovery/announce), with GET or HEAD only: a stranger's payload
 *   never makes the service send another method anywhere, or repeat it as a health check. The
 *   probe lists the resource on its own 402.
 * Fire and forget: a failure is logged and never reaches the payer's answer. Shutdown awaits `idle()`.
 */
import { InvalidInput } from '../core/errors.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { Logger } from '../logger.js';
import type { TrafficSighting } from './trafficSighting.js';
import type { BazaarOutcome } from '../x402/wire.js';

/** The announce path (AnnounceService): validation, dedup per URL and interval, SSRF-safe probe, pacing. */
export interface ProbeScheduler {
  announce(body: { resource: string; method?: string; routeTemplate?: string }): Promise<unknown>;
}

/** Methods a probe on a stranger's word may send: safe ones, which change nothing at the other end. */
export const TRAFFIC_PROBE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

const MAX_REMEMBERED = 10_000;

export interface TrafficCatalogerDeps {
  writer: () => CatalogWriter | undefined;
  logger: Logger;
  /** Least interval between two touches of one listing, and two probe requests of one resource (TRAFFIC_REFRESH_MS). */
  refreshMs: number;
  probes: ProbeScheduler;
  now?: () => number;
}

export class TrafficCataloger {
  /** listing id -> when it was last touched or its probe asked for, so steady traffic costs one write a minute. */
  private readonly recent = new Map<string, { at: number; outcome: Promise<BazaarOutcome> }>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly deps: TrafficCatalogerDeps) {}

  /** A listed resource's seller was paid: the listing is seen. */
  seen(listingId: string): void {
    void this.once(`seen ${listingId}`, async () => {
      const writer = this.deps.writer();
      if (writer) await writer.touch(listingId);
      return { status: 'success' };
    });
  }

  /** An unlisted resource was named by a payment: at most a probe of it (the Bazaar outcome says which). */
  probe(sighting: TrafficSighting): Promise<BazaarOutcome> {
    const { input } = sighting;
    // Nothing to probe behind an MCP tool: its seller publishes it (POST /discovery/publish, the seller SDK).
    if (input.type !== 'http') return Promise.resolve(rejected('an MCP tool is listed by its seller\'s publish (the seller SDK or POST /discovery/publish), never by a payment'));
    const method = (input.method ?? 'GET').toUpperCase();
    if (!TRAFFIC_PROBE_METHODS.has(method)) {
      return Promise.resolve(rejected(`a payment only makes the service probe with GET or HEAD; announce this ${method} resource (POST /discovery/announce) to have it probed with ${method}`));
    }
    return this.once(`probe ${sighting.listingId}`, async () => {
      try {
        await this.deps.probes.announce({ resource: input.resource, method, ...(input.routeTemplate ? { routeTemplate: input.routeTemplate } : {}) });
        // The probe lists the resource only on its own 402.
        return { status: 'processing' };
      } catch (err) {
        // A URL or template the announce path refuses is simply not probed; the payment is unaffected.
        if (!(err instanceof InvalidInput)) throw err;
        return rejected(`the resource cannot be probed: ${err.message}`);
      }
    });
  }

  /** Resolves when no write or probe request is in flight (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Runs `work` unless it ran for `key` within the refresh interval; a repeat gets that run's outcome. */
  private once(key: string, work: () => Promise<BazaarOutcome>): Promise<BazaarOutcome> {
    const now = (this.deps.now ?? Date.now)();
    const seen = this.recent.get(key);
    if (seen && now - seen.at < this.deps.refreshMs) return seen.outcome;
    if (this.recent.size >= MAX_REMEMBERED) this.recent.clear();
    const outcome = work().catch((err: unknown) => {
      this.recent.delete(key);
      this.deps.logger.warn('traffic cataloging failed', { key, err: (err as Error).message });
      return rejected('the catalog could not be updated; the next payment retries');
    });
    this.recent.set(key, { at: now, outcome });
    this.inFlight.add(outcome);
    void outcome.finally(() => this.inFlight.delete(outcome));
    return outcome;
  }
}

export function rejected(rejectedReason: string): BazaarOutcome {
  return { status: 'rejected', rejectedReason: rejectedReason.slice(0, 300) };
}
