/**
 * Tells the service about a seller's paid routes (POST /discovery/announce) without ever slowing
 * the seller down: `enqueue` only records the route; a timer flushes what accumulated (one request
 * per route, a few in parallel), and a failed announce is retried with exponential backoff. Each
 * route is announced once per process and origin after it succeeded.
 */
import { ServiceCallError, type ServiceClient } from './serviceClient.js';

export interface Announcement {
  /** Concrete URL the service will probe (it answers 402 without payment). */
  resource: string;
  method: string;
  /** Express route path (`/weather/:city`) when the route is dynamic. */
  routeTemplate?: string;
  /** The v2 PaymentRequired object the route serves. */
  challenge: Record<string, unknown>;
}

/** The answer to an origin announce and its status (the service's OriginStatus). */
export interface OriginAnnouncement {
  origin: string;
  announcedAt: string;
  manifests: Array<{ url: string; outcome: 'read' | 'absent' | 'failed' | 'invalid'; shape?: string; resources: number; detail?: string }>;
  resources: Array<{ resource: string; method: string; id?: string; outcome: string; reason?: string; status?: string; detail?: string }>;
}

export interface AnnouncerOptions {
  /** How long announcements accumulate before a flush (default 200 ms). */
  flushDelayMs?: number;
  /** Parallel announce requests per flush (default 4). */
  concurrency?: number;
  /** First retry delay, doubled per attempt up to `maxBackoffMs` (defaults 500 ms, 60 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Attempts before giving up until the route's next 402 (default 8). */
  maxAttempts?: number;
  onError?: (err: Error, announcement: Announcement) => void;
}

interface Pending {
  announcement: Announcement;
  attempts: number;
  notBefore: number;
}

export class Announcer {
  private readonly queue = new Map<string, Pending>();
  private readonly done = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private readonly options: Required<Omit<AnnouncerOptions, 'onError'>> & Pick<AnnouncerOptions, 'onError'>;

  constructor(
    private readonly client: ServiceClient,
    options: AnnouncerOptions = {},
  ) {
    this.options = {
      flushDelayMs: options.flushDelayMs ?? 200,
      concurrency: options.concurrency ?? 4,
      initialBackoffMs: options.initialBackoffMs ?? 500,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      maxAttempts: options.maxAttempts ?? 8,
      onError: options.onError,
    };
  }

  /**
   * `METHOD origin + (route template or path)`. The origin is part of the key: without `publicUrl`
   * it comes from the request's Host header, and a request naming a bogus host must not mark the
   * route done for the real one.
   */
  static keyOf(a: Pick<Announcement, 'method' | 'routeTemplate' | 'resource'>): string {
    const url = new URL(a.resource);
    return `${a.method.toUpperCase()} ${url.origin}${a.routeTemplate ?? url.pathname}`;
  }

  /** Synchronous and cheap: safe on every 402. */
  enqueue(announcement: Announcement): void {
    if (this.closed) return;
    const key = Announcer.keyOf(announcement);
    if (this.done.has(key) || this.queue.has(key)) return;
    this.queue.set(key, { announcement, attempts: 0, notBefore: 0 });
    this.schedule(this.options.flushDelayMs);
  }

  /**
   * Announces the seller's whole origin at once (docs/federation.md): the service reads its
   * /.well-known/x402 and /openapi.json and queues every resource they name for its probe. One
   * request, answered with each manifest and resource and what became of it; follow the probes
   * with `originStatus`.
   */
  async announceOrigin(origin: string): Promise<OriginAnnouncement> {
    return (await this.client.call<OriginAnnouncement>('POST', '/discovery/announce', { origin })).body;
  }

  /** What the last announce of `origin` found, with each resource's probe outcome now. */
  async originStatus(origin: string): Promise<OriginAnnouncement> {
    return (await this.client.call<OriginAnnouncement>('GET', `/discovery/announce/status?origin=${encodeURIComponent(origin)}`, undefined)).body;
  }

  /** Routes announced successfully so far (their keys). */
  announced(): string[] {
    return [...this.done];
  }

  /** Sends what is due now; resolves when that round finished. */
  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.sendDue().finally(() => {
      this.flushing = undefined;
      if (this.queue.size > 0 && !this.closed) this.schedule(this.nextDueIn());
    });
    return this.flushing;
  }

  /** Stops the timer after one last attempt at what is queued. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    this.closed = true;
    this.queue.clear();
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    // Announcing never keeps a seller's process alive.
    this.timer.unref();
  }

  private nextDueIn(): number {
    const now = Date.now();
    const next = Math.min(...[...this.queue.values()].map((p) => p.notBefore));
    return Math.max(this.options.flushDelayMs, next - now);
  }

  private async sendDue(): Promise<void> {
    const now = Date.now();
    const due = [...this.queue.entries()].filter(([, p]) => p.notBefore <= now);
    let cursor = 0;
    const lane = async () => {
      while (cursor < due.length) {
        const [key, pending] = due[cursor++]!;
        await this.sendOne(key, pending);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, due.length) }, lane));
  }

  private async sendOne(key: string, pending: Pending): Promise<void> {
    try {
      await this.client.call('POST', '/discovery/announce', pending.announcement);
      this.queue.delete(key);
      this.done.add(key);
    } catch (err) {
      pending.attempts += 1;
      const retryable = !(err instanceof ServiceCallError) || err.retryable;
      if (!retryable || pending.attempts >= this.options.maxAttempts) {
        // Forgotten, not marked done: the route's next 402 tries again.
        this.queue.delete(key);
      } else {
        const backoff = Math.min(this.options.maxBackoffMs, this.options.initialBackoffMs * 2 ** (pending.attempts - 1));
        pending.notBefore = Date.now() + backoff * (0.75 + Math.random() * 0.5);
      }
      this.options.onError?.(err as Error, pending.announcement);
    }
  }
}
