/**
 * One probe: fetch the resource without payment, read its 402, compare with what was announced,
 * and turn the outcome into a catalog write (upsert, touch or remove) plus a status record.
 * Security rule: a probe only removes a listing on what the resource itself answers (no 402, a
 * redirect, a broken challenge); an announce carrying wrong requirements never removes anything,
 * or anyone could delist a competitor by announcing it with a different price. Nor does an announce
 * of a listed id with another URL (a query string, another concrete path of a routeTemplate): the
 * record keeps the URL it was listed with (ProbeStore), and a probe of any other URL is at most a
 * rejection of that announcement, never a catalog write.
 */
import type { AnnounceSettings } from '../config/announceSettings.js';
import type { Discovered, Payment } from '../shapes/listing.js';
import type { CatalogWriter } from '../catalog/writer.js';
import type { HttpListingInput } from '../shapes/listingInput.js';
import { InvalidListingError } from '../catalog/validation.js';
import type { Logger } from '../logger.js';
import { ProbeAllowList } from './addressPolicy.js';
import { paymentOf, type ParsedChallenge } from './challenge.js';
import type { ProbeRecord, ProbeStore } from '../store/redis/probeStore.js';
import type { OptOuts } from '../store/redis/optOuts.js';
import { FetchFailure, type CheckedAddress } from './safeFetch.js';
import { ResourceFetch, type ProbeOutcome } from './resourceFetch.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { HealthSchedule } from './healthSchedule.js';
import { checkMcpTool } from './mcpCheck.js';

/** Rejected records are kept this long for status lookups, then forgotten. */
const FORGET_REJECTED_MS = 7 * 86_400_000;
/** A listed resource that failed transiently is retried sooner than the normal re-probe. */
const RETRY_AFTER_TRANSIENT_MS = 5 * 60_000;

/** What a probe did: listed (or updated), rejected (not listed / removed), or kept listed despite a failure. */
export type ProbeResult = 'listed' | 'rejected' | 'removed' | 'kept';

export type { ProbeOutcome, ProbeReason } from './resourceFetch.js';

export class Prober {
  private readonly allowList: ProbeAllowList;
  private readonly fetcher: ResourceFetch;
  /** Observer for metrics; called once per probe. */
  onResult?: (result: ProbeResult, reason: string) => void;

  constructor(
    private readonly settings: AnnounceSettings,
    private readonly store: ProbeStore,
    private readonly writer: CatalogWriter,
    private readonly logger: Logger,
    private readonly now: Clock = systemClock,
    /** Active health: when listed resources are re-checked, and where each check is recorded. */
    private readonly health?: HealthSchedule,
    /** Sellers' opt-outs: an opted-out resource is never fetched, however it was named (store/redis/optOuts.ts). */
    private readonly optedOut?: Pick<OptOuts, 'which'>,
  ) {
    this.allowList = new ProbeAllowList(settings.probeAllow);
    this.fetcher = new ResourceFetch(settings, this.allowList, logger);
  }

  /** Fetches a resource and reads its 402 (the re-probe of a listing, or a check). */
  fetchAndRead(record: Pick<ProbeRecord, 'resource' | 'method' | 'routeTemplate' | 'expected'>, pinned?: CheckedAddress): Promise<ProbeOutcome> {
    return this.fetcher.fetchAndRead(record, pinned);
  }

  /** Probes the id's resource and records the result. Unknown ids are dropped from the schedule. */
  async probe(id: string): Promise<void> {
    const record = await this.store.get(id);
    if (!record) {
      await this.store.unschedule(id);
      return;
    }
    const at = this.now();
    if (await this.isOptedOut(record)) return this.keepOut(record, at);
    // Paced per resolved address, not per name: wildcard DNS aims any number of names at one
    // address (issue 43). A name that resolves to nothing (or only inward) sends no request at all.
    const target = await this.fetcher.resolve(record.resource);
    const pace = target instanceof FetchFailure ? undefined : target.address;
    const slot = pace === undefined ? undefined : await this.store.takeHostSlot(pace, at, this.settings.probeHostRatePerSecond, this.settings.probeTimeoutMs + 1000);
    if (pace !== undefined && !slot) {
      await this.store.postpone(id, at + 1000 + Math.floor(Math.random() * 1000));
      return;
    }
    if (record.watch) {
      try {
        return await this.checkWatched(record, at, target);
      } finally {
        if (slot) await this.store.releaseHostSlot(pace!, slot, this.now());
      }
    }
    // Wall time, not the injectable clock: latency is measured, never simulated.
    const started = performance.now();
    let outcome: ProbeOutcome;
    try {
      outcome = target instanceof FetchFailure ? this.fetcher.failed(record, target) : await this.fetcher.fetchAndRead(record, target);
    } finally {
      if (slot) await this.store.releaseHostSlot(pace!, slot, this.now());
    }
    const latencyMs = performance.now() - started;
    if (this.health && record.status === 'listed' && probedVerifiedUrl(record)) {
      // A requirements mismatch is the announcement's fault: the resource answered a valid 402.
      const ok = outcome.ok || outcome.reason === 'requirements_mismatch';
      await this.health.record(record.listingId ?? record.id, ok, latencyMs, this.now());
    }
    await this.apply(record, outcome);
  }

  /**
   * A health-only record (a listing known from settlements, an MCP tool): the check is recorded
   * and rescheduled, and that is all. A failure demotes the listing through its health; it never
   * writes or removes it (those listings leave by today's rules: unpublish, staleness).
   */
  private async checkWatched(record: ProbeRecord, at: number, target: CheckedAddress | FetchFailure): Promise<void> {
    const started = performance.now();
    const outcome =
      target instanceof FetchFailure
        ? this.fetcher.failed(record, target)
        : record.watch === 'mcp'
          ? await checkMcpTool(record.resource, record.toolName ?? '', JSON.parse(record.callArguments ?? '{}') as Record<string, unknown>, {
              allowList: this.allowList,
              timeoutMs: this.settings.probeTimeoutMs,
              maxBodyBytes: this.settings.probeMaxBodyBytes,
            })
          : // A health check of a listing nobody announced repeats only a safe method (issue 43).
            await this.fetcher.fetchAndRead({ ...record, method: record.method === 'HEAD' ? 'HEAD' : 'GET' }, target);
    const latencyMs = performance.now() - started;
    const ok = outcome.ok || ('reason' in outcome && outcome.reason === 'requirements_mismatch');
    await this.health?.record(record.id, ok, latencyMs, this.now());
    const failure = ok ? {} : { reason: 'health_check_failed', detail: outcome.ok ? '' : outcome.detail.slice(0, 500) };
    await this.store.finish(record.id, { lastProbedAt: at, ...failure }, { nextProbeAt: await this.nextCheckAt(record, this.now()), clear: ok ? ['reason', 'detail'] : [] });
    this.onResult?.('kept', ok ? 'ok' : 'health_check_failed');
  }

  private async isOptedOut(record: ProbeRecord): Promise<boolean> {
    if (!this.optedOut) return false;
    return (await this.optedOut.which(record.listingId && record.listingId !== record.id ? [record.id, record.listingId] : [record.id])).size > 0;
  }

  /**
   * A resource its seller opted out of the catalog: nothing is fetched (an announce, a crawl, a
   * manifest or a payment may still name it), the record says why, and no re-probe is scheduled.
   */
  private async keepOut(record: ProbeRecord, at: number): Promise<void> {
    await this.store.finish(
      record.id,
      { status: 'rejected', lastProbedAt: at, reason: 'opted_out', detail: 'its seller took this resource out of the catalog; it stays out until the seller lifts it' },
      { clear: ['expected'], forgetAfterMs: FORGET_REJECTED_MS },
    );
    this.onResult?.('rejected', 'opted_out');
  }

  /** When a listed record is probed next: its health-check interval (spread +-10%). */
  private async nextCheckAt(record: ProbeRecord, at: number): Promise<number> {
    const interval = this.health ? await this.health.intervalFor(record.listingId ?? record.id, at) : this.settings.reprobeIntervalMs;
    return at + this.jitter(interval);
  }

  private async apply(record: ProbeRecord, outcome: ProbeOutcome): Promise<void> {
    const at = this.now();
    const wasListed = record.status === 'listed';
    if (wasListed && !probedVerifiedUrl(record)) return this.keepVerifiedUrl(record, outcome, at);
    if (outcome.ok) {
      const input = this.listingInput(record, outcome.challenge);
      let listingId: string;
      try {
        const discovered = discoveredOf(record.provenance);
        const alsoNamedBy = discoveredOf(record.lastClaim);
        const evidence = { probed402: 'valid_402', ...(discovered ? { discovered } : {}), ...(alsoNamedBy ? { alsoNamedBy } : {}) };
        listingId = (await this.writer.upsert(input, { source: 'announce', seenAt: new Date(at), evidence })).id;
      } catch (err) {
        if (!(err instanceof InvalidListingError)) throw err;
        const detail = err.errors.map((e) => `${e.path}: ${e.message}`).join('; ');
        return this.apply(record, { ok: false, reason: 'invalid_listing', detail, transient: false });
      }
      const previousId = record.listingId ?? record.id;
      if (wasListed && previousId !== listingId) {
        // The seller started (or stopped) declaring a routeTemplate: one listing replaces the other.
        await this.writer.remove(previousId, 'probe_failed');
      }
      if (listingId !== record.id && listingId !== record.listingId) await this.store.setAlias(listingId, record.id);
      await this.store.finish(
        record.id,
        {
          status: 'listed',
          // What was fetched is what was verified (an announce during the probe may have written another URL).
          resource: record.resource,
          method: record.method,
          verifiedResource: record.resource,
          verifiedMethod: record.method,
          lastProbedAt: at,
          listedAt: wasListed ? record.listedAt : at,
          failures: 0,
          ...(listingId !== record.id ? { listingId } : {}),
        },
        {
          nextProbeAt: await this.nextCheckAt(record, at),
          clear: listingId !== record.id ? ['reason', 'detail', 'expected'] : ['reason', 'detail', 'expected', 'listingId'],
        },
      );
      this.logger.debug('probe listed resource', { id: record.id, resource: record.resource });
      this.onResult?.('listed', 'ok');
      return;
    }

    const base = { lastProbedAt: at, reason: outcome.reason, detail: outcome.detail.slice(0, 500) };
    if (!wasListed) {
      await this.store.finish(record.id, { ...base, status: 'rejected', failures: 0 }, { clear: ['expected'], forgetAfterMs: FORGET_REJECTED_MS });
      this.onResult?.('rejected', outcome.reason);
      return;
    }
    // The listing stays for now (below): its provenance says what the last probe found.
    const lastProbe = { probed402: { lastStatus: outcome.reason, lastAt: new Date(at).toISOString() } };
    if (outcome.reason === 'requirements_mismatch') {
      // The resource itself still answers a valid 402; only the announcement was wrong.
      await this.writer.recordEvidence(record.listingId ?? record.id, lastProbe);
      await this.store.finish(record.id, base, { nextProbeAt: await this.nextCheckAt(record, at), clear: ['expected'] });
      this.onResult?.('kept', outcome.reason);
      return;
    }
    const failures = record.failures + 1;
    if (outcome.transient && failures < this.settings.probeFailuresBeforeRemoval) {
      const retryAt = Math.min(at + RETRY_AFTER_TRANSIENT_MS, await this.nextCheckAt(record, at));
      await this.writer.recordEvidence(record.listingId ?? record.id, lastProbe);
      await this.store.finish(record.id, { ...base, failures }, { nextProbeAt: retryAt, clear: ['expected'] });
      this.onResult?.('kept', outcome.reason);
      return;
    }
    await this.writer.remove(record.listingId ?? record.id, 'probe_failed');
    await this.store.finish(record.id, { ...base, status: 'rejected', failures }, { clear: ['expected'], forgetAfterMs: FORGET_REJECTED_MS });
    this.logger.info('probe removed listing', { id: record.id, resource: record.resource, reason: outcome.reason });
    this.onResult?.('removed', outcome.reason);
  }

  /**
   * A listed record whose resource is not the URL it was listed with (defence in depth: ProbeStore
   * never lets an announce replace it). Whatever that URL answered says nothing about the listing:
   * no upsert, no removal, no failure count; the record goes back to its verified URL, which the
   * next re-probe fetches.
   */
  private async keepVerifiedUrl(record: ProbeRecord, outcome: ProbeOutcome, at: number): Promise<void> {
    const verified = record.verifiedResource!;
    const answered = outcome.ok ? 'it answers a valid 402' : outcome.detail;
    const detail = `probed ${record.method} ${record.resource}, not the listed ${record.verifiedMethod ?? record.method} ${verified} (${answered}); the listing is kept`;
    await this.store.finish(
      record.id,
      { resource: verified, method: record.verifiedMethod ?? record.method, lastProbedAt: at, reason: 'resource_mismatch', detail: detail.slice(0, 500) },
      { nextProbeAt: await this.nextCheckAt(record, at), clear: ['expected'] },
    );
    this.logger.warn('probe of a listed id fetched another URL than the listed one; listing kept', { id: record.id, resource: record.resource, verified });
    this.onResult?.('kept', 'resource_mismatch');
  }

  private listingInput(record: ProbeRecord, challenge: ParsedChallenge): HttpListingInput {
    const [primary, ...others] = challenge.accepts;
    const input: HttpListingInput = {
      type: 'http',
      resource: record.resource,
      method: record.method,
      payment: paymentOf(primary!),
      accepts: challenge.accepts,
    };
    const routeTemplate = record.routeTemplate ?? challenge.routeTemplate;
    if (routeTemplate) input.routeTemplate = routeTemplate;
    if (challenge.describe) input.describe = challenge.describe;
    if (others.length === 0) delete input.accepts;
    return input;
  }

  /** Spreads re-probes of listings announced together over +-10% of the interval. */
  private jitter(intervalMs: number): number {
    return Math.round(intervalMs * (0.9 + Math.random() * 0.2));
  }
}

/** The upstream or manifest that claimed the record (src/federation), as the listing will carry it. */
function discoveredOf(provenance: string | undefined): Discovered | undefined {
  if (!provenance) return undefined;
  try {
    return JSON.parse(provenance) as Discovered;
  } catch {
    return undefined; // written by this service only; a broken one is dropped rather than failing the probe
  }
}

/** True unless the record knows the URL it was listed with and this probe fetched another one. */
function probedVerifiedUrl(record: ProbeRecord): boolean {
  if (record.verifiedResource === undefined) return true; // listed before verified URLs were recorded
  return record.resource === record.verifiedResource && record.method === (record.verifiedMethod ?? record.method);
}
