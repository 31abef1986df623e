/**
 * Publishes MCP tool listings with a seller token (POST /discovery/publish), retrying with backoff
 * until the service answers: a seller's server can start before the service does. A refusal that
 * retrying cannot fix (401, 403, 400) is reported and not retried.
 */
import type { McpListing } from '../shapes/listing.js';
import { PUBLISH_CLIENT_HEADER, SDK_PUBLISH_CLIENT } from '../shapes/publishClient.js';
import { ServiceCallError, type ServiceClient } from './serviceClient.js';

/** An MCP tool listing as POST /discovery/publish takes it: the catalog's MCP listing without what the service sets. */
export type ToolListing = Omit<McpListing, 'id' | 'signals' | 'provenance' | 'debug'> & { serviceName?: string };

export type PublishOutcome =
  | { name: string; status: 'published'; id: string; created: boolean }
  | { name: string; status: 'refused'; httpStatus: number; detail: string; errors?: Array<{ path: string; message: string }> }
  | { name: string; status: 'stopped' };

export interface PublisherOptions {
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  onError?: (err: Error, listing: ToolListing) => void;
}

export class Publisher {
  private stopped = false;
  private readonly wakeups = new Set<() => void>();

  constructor(
    private readonly client: ServiceClient,
    private readonly sellerToken: string,
    private readonly options: PublisherOptions = {},
  ) {}

  /** Publishes every listing; resolves once each was published, refused, or `stop()` was called. */
  async publishAll(listings: ToolListing[]): Promise<PublishOutcome[]> {
    return Promise.all(listings.map((listing) => this.publishOne(listing)));
  }

  async publishOne(listing: ToolListing): Promise<PublishOutcome> {
    let delay = this.options.initialBackoffMs ?? 250;
    const maxDelay = this.options.maxBackoffMs ?? 30_000;
    while (!this.stopped) {
      try {
        const res = await this.client.call<{ id: string }>('POST', '/discovery/publish', listing, {
          authorization: `Bearer ${this.sellerToken}`,
          [PUBLISH_CLIENT_HEADER]: SDK_PUBLISH_CLIENT,
        });
        return { name: listing.name, status: 'published', id: res.body.id, created: res.status === 201 };
      } catch (err) {
        this.options.onError?.(err as Error, listing);
        if (err instanceof ServiceCallError && !err.retryable) {
          const body = err.body as { detail?: string; errors?: Array<{ path: string; message: string }> } | undefined;
          return {
            name: listing.name,
            status: 'refused',
            httpStatus: err.status ?? 0,
            detail: body?.detail ?? err.message,
            ...(body?.errors ? { errors: body.errors } : {}),
          };
        }
      }
      await this.sleep(delay * (0.75 + Math.random() * 0.5));
      delay = Math.min(maxDelay, delay * 2);
    }
    return { name: listing.name, status: 'stopped' };
  }

  /** Ends pending retries (their outcome is `stopped`). */
  stop(): void {
    this.stopped = true;
    for (const wake of this.wakeups) wake();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeups.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wakeups.add(done);
    });
  }
}
