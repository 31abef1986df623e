/**
 * One crawl of one upstream catalog: its pages one after another (never two requests at once to
 * the same upstream), each with the validators of its last answer (If-None-Match,
 * If-Modified-Since) so an unchanged page costs a 304, and every resource named queued for the
 * announce path's own probe with the upstream as its provenance. Nothing an upstream answers can
 * remove a listing: a failed crawl only records its error and when the next attempt is due
 * (exponential backoff, or the upstream's Retry-After when longer).
 */
import type { FederationSettings, UpstreamSettings } from '../config/federationSettings.js';
import type { PassLease } from '../core/worker.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';
import type { ClaimRequest, ClaimResult } from '../announce/announceService.js';
import { ProbeAllowList } from '../probe/addressPolicy.js';
import { FetchFailure, safeFetch, type SafeResponse } from '../probe/safeFetch.js';
import type { FederationStore } from '../store/redis/federationStore.js';
import type { ResourceClaim } from './claims.js';
import { pageKey, pageUrl, parseUpstreamPage, UpstreamShapeError, type PageRequest } from './upstreamPage.js';

/** Where claims go: AnnounceService.claim (an interface, so the crawl is tested against the real one). */
export interface ClaimQueue {
  claim(request: ClaimRequest): Promise<ClaimResult>;
}

/** What happened to the items of a crawl, by outcome (the status and /metrics show them). */
export const ITEM_OUTCOMES = ['queued', 'pending', 'verified', 'refused', 'skipped', 'invalid'] as const;
export type ItemOutcome = (typeof ITEM_OUTCOMES)[number];
export type PageResult = 'ok' | 'not_modified' | 'error';

export interface CrawlReport {
  ok: boolean;
  pages: number;
  notModified: number;
  counts: Record<ItemOutcome, number>;
  total?: number;
  error?: string;
}

export interface CrawlObserver {
  onPage?: (upstream: string, result: PageResult) => void;
  onItems?: (upstream: string, outcome: ItemOutcome, count: number) => void;
}

const CLAIMS_AT_ONCE = 32;

class UpstreamAnswerError extends Error {
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message);
  }
}

function retryAfterMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^\d{1,7}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const header = (response: SafeResponse, name: string): string | undefined => {
  const value = response.headers[name];
  return typeof value === 'string' && value.length <= 512 ? value : undefined;
};

export class UpstreamCrawler {
  private readonly allowList: ProbeAllowList;

  constructor(
    private readonly settings: FederationSettings,
    readonly upstream: UpstreamSettings,
    private readonly store: FederationStore,
    private readonly queue: ClaimQueue,
    probeAllow: string[],
    private readonly logger: Logger,
    private readonly now: Clock,
    private readonly observer: CrawlObserver = {},
  ) {
    // The operator named this upstream, so its own address may be private (a mirror on the same
    // network); the resources it names are probed under the probe's rules only (PROBE_ALLOW).
    const url = new URL(upstream.url);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    this.allowList = new ProbeAllowList([...probeAllow, `${url.hostname}:${port}`]);
  }

  /**
   * Pages through the whole list; `lease` (when given) must still be held before each page, and
   * `stopping` (a service shutting down) ends the crawl between pages, due again at once.
   */
  async crawl(lease?: PassLease, stopping: () => boolean = () => false): Promise<CrawlReport> {
    const name = this.upstream.name;
    const startedAt = this.now();
    const report: CrawlReport = { ok: false, pages: 0, notModified: 0, counts: { queued: 0, pending: 0, verified: 0, refused: 0, skipped: 0, invalid: 0 } };
    await this.store.updateUpstream(name, { state: 'crawling', lastStartedAt: startedAt, url: this.upstream.url });
    try {
      let request: PageRequest | undefined = { offset: 0 };
      while (request) {
        if (report.pages >= this.settings.maxPages) throw new UpstreamAnswerError(`stopped after REACH_MAX_PAGES (${this.settings.maxPages}) pages`);
        if (lease && !(await lease.hold())) throw new UpstreamAnswerError('another instance took over this upstream');
        if (stopping()) return await this.interrupted(report);
        request = await this.page(request, report);
        report.pages += 1;
      }
      report.ok = true;
    } catch (err) {
      report.error = err instanceof UpstreamAnswerError || err instanceof FetchFailure || err instanceof UpstreamShapeError ? err.message : `unexpected: ${(err as Error).message}`;
      this.observer.onPage?.(name, 'error');
      await this.recordFailure(report, err instanceof UpstreamAnswerError ? err.retryAfterMs : undefined);
      this.logger.warn('upstream crawl failed', { upstream: name, error: report.error, pages: report.pages });
      return report;
    }
    const at = this.now();
    await this.store.updateUpstream(
      name,
      { state: 'ok', lastFinishedAt: at, lastSuccessAt: at, failures: 0, nextCrawlAt: at + this.upstream.intervalMs, ...this.countFields(report) },
      ['lastError', ...(report.total === undefined ? ['total'] : [])],
    );
    return report;
  }

  /** Stopped between pages: not a failure of the upstream, and due again at once (for another instance). */
  private async interrupted(report: CrawlReport): Promise<CrawlReport> {
    report.error = 'interrupted: this instance stopped mid-crawl';
    await this.store.updateUpstream(this.upstream.name, { state: 'error', lastError: report.error, lastFinishedAt: this.now(), nextCrawlAt: this.now(), ...this.countFields(report) });
    return report;
  }

  private countFields(report: CrawlReport): Record<string, number> {
    return { pages: report.pages, notModified: report.notModified, ...report.counts, ...(report.total !== undefined ? { total: report.total } : {}) };
  }

  private async recordFailure(report: CrawlReport, retryAfter: number | undefined): Promise<void> {
    const state = await this.store.upstream(this.upstream.name);
    const failures = Number(state.failures ?? 0) + 1;
    const backoff = Math.min(this.settings.backoffBaseMs * 2 ** Math.min(failures - 1, 30), this.settings.backoffMaxMs);
    const at = this.now();
    await this.store.updateUpstream(this.upstream.name, {
      state: 'error',
      lastFinishedAt: at,
      failures,
      lastError: (report.error ?? 'failed').slice(0, 300),
      nextCrawlAt: at + Math.max(backoff, retryAfter ?? 0),
      ...this.countFields(report),
    });
  }

  /** Fetches and queues one page; resolves with the next page's request, if any. */
  private async page(request: PageRequest, report: CrawlReport): Promise<PageRequest | undefined> {
    const name = this.upstream.name;
    const key = pageKey(request);
    const validators = await this.store.pageValidators(name, key);
    const headers: Record<string, string> = {};
    if (validators.etag) headers['If-None-Match'] = validators.etag;
    if (validators.lastModified) headers['If-Modified-Since'] = validators.lastModified;
    const response = await safeFetch('GET', pageUrl(this.upstream.url, request, this.upstream.pageSize), {
      allowList: this.allowList,
      timeoutMs: this.settings.timeoutMs,
      maxBodyBytes: this.settings.maxPageBytes,
      readBodyFor: (status) => status === 200,
      headers: { 'User-Agent': 'x402-discovery-reach/1', ...headers },
    });
    if (response.status === 304 && (validators.etag || validators.lastModified)) {
      report.notModified += 1;
      this.observer.onPage?.(name, 'not_modified');
      return validators.next ? (JSON.parse(validators.next) as PageRequest) : undefined;
    }
    if (response.status !== 200) {
      const retry = response.status === 429 || response.status === 503 ? retryAfterMs(response.headers['retry-after']) : undefined;
      throw new UpstreamAnswerError(`page ${key} answered ${response.status}`, retry);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw new UpstreamShapeError(`page ${key} is not JSON`);
    }
    const parsed = parseUpstreamPage(body, request, this.upstream.pageSize);
    if (parsed.total !== undefined) report.total = parsed.total;
    report.counts.skipped += parsed.skipped.length;
    this.observer.onItems?.(name, 'skipped', parsed.skipped.length);
    await this.queueAll(parsed.claims, report);
    await this.store.savePage(name, key, {
      ...(header(response, 'etag') ? { etag: header(response, 'etag') } : {}),
      ...(header(response, 'last-modified') ? { lastModified: header(response, 'last-modified') } : {}),
      ...(parsed.next ? { next: JSON.stringify(parsed.next) } : {}),
    });
    this.observer.onPage?.(name, 'ok');
    return parsed.next;
  }

  private async queueAll(claims: ResourceClaim[], report: CrawlReport): Promise<void> {
    const firstSeen = new Date(this.now()).toISOString();
    const seen: Partial<Record<ItemOutcome, number>> = {};
    // A few claims at a time: each is one Redis script, and a page holds up to a thousand.
    for (let start = 0; start < claims.length; start += CLAIMS_AT_ONCE) {
      const results = await Promise.all(
        claims.slice(start, start + CLAIMS_AT_ONCE).map((claim) =>
          this.queue.claim({
            resource: claim.resource,
            method: claim.method,
            provenance: { source: 'upstream', name: this.upstream.name, url: this.upstream.url, firstSeen, ...(Object.keys(claim.claims).length > 0 ? { claims: claim.claims } : {}) },
            rejectedRetryMs: this.settings.rejectedRetryMs,
          }),
        ),
      );
      for (const result of results) {
        const outcome = outcomeOf(result);
        report.counts[outcome] += 1;
        seen[outcome] = (seen[outcome] ?? 0) + 1;
      }
    }
    for (const [outcome, count] of Object.entries(seen)) this.observer.onItems?.(this.upstream.name, outcome as ItemOutcome, count);
  }
}

export function outcomeOf(result: ClaimResult): ItemOutcome {
  if ('invalid' in result) return 'invalid';
  if (result.queued) return 'queued';
  return result.status === 'listed' ? 'verified' : result.status === 'rejected' ? 'refused' : 'pending';
}
