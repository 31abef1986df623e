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
import { HEADERS } from '../x402/wire.js';
import { ChallengeError, decodeChallengeHeader, parseChallenge, paymentOf, requirementsDifference, type ParsedChallenge } from './challenge.js';
import { templateMatchesPath } from '../x402/routeTemplate.js';
import type { ProbeRecord, ProbeStore } from '../store/redis/probeStore.js';
import { FetchFailure, resolveFetchTarget, safeFetch, type CheckedAddress, type SafeResponse } from './safeFetch.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { HealthSchedule } from './healthSchedule.js';
import { checkMcpTool } from './mcpCheck.js';

export type ProbeReason =
  | 'not_402'
  | 'redirect'
  | 'invalid_challenge'
  | 'requirements_mismatch'
  | 'blocked_address'
  | 'dns_failure'
  /** Refused, reset, timed out or a TLS failure: one reason, so a probe cannot port-scan for anyone (safeFetch.ts). */
  | 'unreachable'
  | 'body_too_large'
  | 'invalid_url'
  | 'invalid_listing'
  | 'resource_mismatch';

export type ProbeOutcome =
  | { ok: true; challenge: ParsedChallenge }
  | { ok: false; reason: ProbeReason; detail: string; transient: boolean };

/** Rejected records are kept this long for status lookups, then forgotten. */
const FORGET_REJECTED_MS = 7 * 86_400_000;
/** A listed resource that failed transiently is retried sooner than the normal re-probe. */
const RETRY_AFTER_TRANSIENT_MS = 5 * 60_000;

/** What a probe did: listed (or updated), rejected (not listed / removed), or kept listed despite a failure. */
export type ProbeResult = 'listed' | 'rejected' | 'removed' | 'kept';

export class Prober {
  private readonly allowList: ProbeAllowList;
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
  ) {
    this.allowList = new ProbeAllowList(settings.probeAllow);
  }

  /** Probes the id's resource and records the result. Unknown ids are dropped from the schedule. */
  async probe(id: string): Promise<void> {
    const record = await this.store.get(id);
    if (!record) {
      await this.store.unschedule(id);
      return;
    }
    const at = this.now();
    // Paced per resolved address, not per name: wildcard DNS aims any number of names at one
    // address (issue 43). A name that resolves to nothing (or only inward) sends no request at all.
    const target = await this.resolve(record.resource);
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
      outcome = target instanceof FetchFailure ? this.failed(record, target) : await this.fetchAndRead(record, target);
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
        ? this.failed(record, target)
        : record.watch === 'mcp'
          ? await checkMcpTool(record.resource, record.toolName ?? '', JSON.parse(record.callArguments ?? '{}') as Record<string, unknown>, {
              allowList: this.allowList,
              timeoutMs: this.settings.probeTimeoutMs,
              maxBodyBytes: this.settings.probeMaxBodyBytes,
            })
          : // A health check of a listing nobody announced repeats only a safe method (issue 43).
            await this.fetchAndRead({ ...record, method: record.method === 'HEAD' ? 'HEAD' : 'GET' }, target);
    const latencyMs = performance.now() - started;
    const ok = outcome.ok || ('reason' in outcome && outcome.reason === 'requirements_mismatch');
    await this.health?.record(record.id, ok, latencyMs, this.now());
    const failure = ok ? {} : { reason: 'health_check_failed', detail: outcome.ok ? '' : outcome.detail.slice(0, 500) };
    await this.store.finish(record.id, { lastProbedAt: at, ...failure }, { nextProbeAt: await this.nextCheckAt(record, this.now()), clear: ok ? ['reason', 'detail'] : [] });
    this.onResult?.('kept', ok ? 'ok' : 'health_check_failed');
  }

  /** When a listed record is probed next: its health-check interval (spread +-10%). */
  private async nextCheckAt(record: ProbeRecord, at: number): Promise<number> {
    const interval = this.health ? await this.health.intervalFor(record.listingId ?? record.id, at) : this.settings.reprobeIntervalMs;
    return at + this.jitter(interval);
  }

  /** The address a fetch of `resource` connects to (checked), or why there is none. */
  private async resolve(resource: string): Promise<CheckedAddress | FetchFailure> {
    try {
      return await resolveFetchTarget(resource, this.allowList, this.settings.probeTimeoutMs);
    } catch (err) {
      if (err instanceof FetchFailure) return err;
      throw err;
    }
  }

  /** A fetch that failed, as the outcome a caller may read; the exact cause (an address, ECONNREFUSED) is for the operator's log. */
  private failed(record: Pick<ProbeRecord, 'resource'>, err: FetchFailure): ProbeOutcome {
    this.logger.debug('probe fetch failed', { resource: record.resource, reason: err.reason, cause: err.internal });
    return { ok: false, reason: err.reason, detail: err.message, transient: err.reason === 'unreachable' || err.reason === 'dns_failure' };
  }

  async fetchAndRead(record: Pick<ProbeRecord, 'resource' | 'method' | 'routeTemplate' | 'expected'>, pinned?: CheckedAddress): Promise<ProbeOutcome> {
    let response: SafeResponse;
    try {
      response = await safeFetch(record.method, record.resource, {
        allowList: this.allowList,
        timeoutMs: this.settings.probeTimeoutMs,
        maxBodyBytes: this.settings.probeMaxBodyBytes,
        readBodyFor: (status) => status === 402,
        ...(pinned ? { pinned } : {}),
      });
    } catch (err) {
      if (err instanceof FetchFailure) return this.failed(record, err);
      throw err;
    }
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.location ? ` to ${String(response.headers.location).slice(0, 200)}` : '';
      return { ok: false, reason: 'redirect', detail: `answered ${response.status}${location}; redirects are not followed`, transient: false };
    }
    if (response.status !== 402) {
      const transient = response.status >= 500 || response.status === 429;
      return { ok: false, reason: 'not_402', detail: `answered ${response.status} instead of 402`, transient };
    }
    let challenge: ParsedChallenge;
    try {
      challenge = parseChallenge(readChallenge(response));
    } catch (err) {
      if (err instanceof ChallengeError) return { ok: false, reason: 'invalid_challenge', detail: err.message, transient: false };
      throw err;
    }
    const template = record.routeTemplate ?? challenge.routeTemplate;
    if (template && !templateMatchesPath(template, new URL(record.resource).pathname)) {
      return {
        ok: false,
        reason: 'invalid_challenge',
        detail: `routeTemplate ${template} does not match the probed path ${new URL(record.resource).pathname}`,
        transient: false,
      };
    }
    if (record.expected) {
      const difference = requirementsDifference(JSON.parse(record.expected) as Payment[], challenge.accepts);
      if (difference) return { ok: false, reason: 'requirements_mismatch', detail: difference, transient: false };
    }
    return { ok: true, challenge };
  }

  private async apply(record: ProbeRecord, outcome: ProbeOutcome): Promise<void> {
    const at = this.now();
    const wasListed = record.status === 'listed';
    if (wasListed && !probedVerifiedUrl(record)) return this.keepVerifiedUrl(record, outcome, at);
    if (outcome.ok) {
      const input = this.listingInput(record, outcome.challenge);
      let listingId: string;
      try {
        const discovered = discoveredOf(record);
        const evidence = { probed402: 'valid_402', ...(discovered ? { discovered } : {}) };
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
function discoveredOf(record: ProbeRecord): Discovered | undefined {
  if (!record.provenance) return undefined;
  try {
    return JSON.parse(record.provenance) as Discovered;
  } catch {
    return undefined; // written by this service only; a broken one is dropped rather than failing the probe
  }
}

/** True unless the record knows the URL it was listed with and this probe fetched another one. */
function probedVerifiedUrl(record: ProbeRecord): boolean {
  if (record.verifiedResource === undefined) return true; // listed before verified URLs were recorded
  return record.resource === record.verifiedResource && record.method === (record.verifiedMethod ?? record.method);
}

/** v2 sends the challenge in the PAYMENT-REQUIRED header (its body may be empty or HTML); v1 in the JSON body. */
function readChallenge(response: SafeResponse): unknown {
  const header = response.headers[HEADERS.paymentRequired.toLowerCase()];
  if (typeof header === 'string' && header.length > 0) return decodeChallengeHeader(header);
  const text = response.body.toString('utf8');
  if (text.trim().length === 0) throw new ChallengeError('the 402 carries neither a PAYMENT-REQUIRED header nor a JSON body');
  try {
    return JSON.parse(text);
  } catch {
    throw new ChallengeError('the 402 body is not JSON and there is no PAYMENT-REQUIRED header');
  }
}
