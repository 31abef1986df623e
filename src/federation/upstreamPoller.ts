/**
 * The schedule of the upstream crawls: every REACH_TICK_MS it looks for upstreams whose next crawl
 * is due (their interval since the last success, or their backoff after a failure) and crawls each
 * under a Redis lease of its own, so among several instances one crawls an upstream at a time
 * and its pages are requested one after another. Upstreams are crawled side by side.
 */
import type { FederationSettings } from '../config/federationSettings.js';
import type { Clock } from '../core/clock.js';
import { PeriodicTask, type BackgroundWorker, type PassLease } from '../core/worker.js';
import type { Logger } from '../logger.js';
import type { FederationStore, UpstreamRecord } from '../store/redis/federationStore.js';
import { ITEM_OUTCOMES, type CrawlReport, type ItemOutcome, type UpstreamCrawler } from './upstreamCrawler.js';

export type UpstreamState = 'never' | 'crawling' | 'ok' | 'error';

/** One upstream as GET /discovery/reach shows it. */
export interface UpstreamStatus {
  name: string;
  url: string;
  state: UpstreamState;
  lastStartedAt?: string;
  lastFinishedAt?: string;
  lastSuccessAt?: string;
  nextCrawlAt?: string;
  failures: number;
  lastError?: string;
  /** What the upstream says it holds (its pagination `total`), when it says so. */
  total?: number;
  /** The last crawl: pages fetched, pages answered 304, and its items by outcome. */
  lastCrawl: { pages: number; notModified: number } & Record<ItemOutcome, number>;
}

const iso = (value: string | undefined) => (value && /^\d+$/.test(value) ? new Date(Number(value)).toISOString() : undefined);

export class UpstreamPoller implements BackgroundWorker {
  readonly name = 'reach-upstreams';
  private readonly task: PeriodicTask;
  private readonly running = new Map<string, Promise<CrawlReport | undefined>>();
  private stopping = false;

  constructor(
    private readonly settings: FederationSettings,
    private readonly crawlers: UpstreamCrawler[],
    private readonly store: FederationStore,
    private readonly leaseFor: (upstream: string) => PassLease,
    private readonly logger: Logger,
    private readonly now: Clock,
  ) {
    this.task = new PeriodicTask(() => this.pass(), settings.tickMs, (err) => this.logger.warn('reach pass failed', { err: (err as Error).message }));
  }

  start(): void {
    this.stopping = false;
    if (this.crawlers.length > 0) this.task.start();
  }

  /** Running crawls end after their current page (a crawl of a large upstream takes minutes). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.task.stop();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * Crawls every due upstream (all of them with `force`; only the `names` given), side by side;
   * resolves with their reports (undefined: not due, or another instance crawls it).
   */
  async pass(force = false, names?: string[]): Promise<Record<string, CrawlReport | undefined>> {
    const chosen = names ? this.crawlers.filter((c) => names.includes(c.upstream.name)) : this.crawlers;
    const reports = await Promise.all(chosen.map(async (crawler) => [crawler.upstream.name, await this.crawlIfDue(crawler, force)] as const));
    return Object.fromEntries(reports);
  }

  private async crawlIfDue(crawler: UpstreamCrawler, force: boolean): Promise<CrawlReport | undefined> {
    const name = crawler.upstream.name;
    const inProcess = this.running.get(name);
    if (inProcess) return inProcess;
    const state = await this.store.upstream(name);
    if (!force && Number(state.nextCrawlAt ?? 0) > this.now()) return undefined;
    const lease = this.leaseFor(name);
    if (!(await lease.hold())) return undefined;
    const crawl = crawler.crawl(lease, () => this.stopping).finally(() => {
      this.running.delete(name);
      return lease.release().catch(() => undefined);
    });
    this.running.set(name, crawl);
    return crawl;
  }

  async statuses(): Promise<UpstreamStatus[]> {
    return Promise.all(this.crawlers.map(async (crawler) => statusOf(crawler.upstream.name, crawler.upstream.url, await this.store.upstream(crawler.upstream.name))));
  }
}

function statusOf(name: string, url: string, record: UpstreamRecord): UpstreamStatus {
  const lastCrawl = { pages: Number(record.pages ?? 0), notModified: Number(record.notModified ?? 0) } as UpstreamStatus['lastCrawl'];
  for (const outcome of ITEM_OUTCOMES) lastCrawl[outcome] = Number(record[outcome] ?? 0);
  const status: UpstreamStatus = { name, url, state: (record.state as UpstreamState | undefined) ?? 'never', failures: Number(record.failures ?? 0), lastCrawl };
  for (const field of ['lastStartedAt', 'lastFinishedAt', 'lastSuccessAt', 'nextCrawlAt'] as const) {
    const value = iso(record[field]);
    if (value) status[field] = value;
  }
  if (record.lastError) status.lastError = record.lastError;
  if (record.total !== undefined) status.total = Number(record.total);
  return status;
}
