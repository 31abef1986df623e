/**
 * What a settlement may write into the catalog (docs/facilitator.md "Evidence before listing"). A
 * settlement that moved value is evidence that a resource is paid for, not that its URL is safe to
 * show buyers or that its host is the payer's to describe:
 * - HTTP resources must pass the probe's own address rules (http or https, no credentials, no
 *   loopback, private, link-local or otherwise non-public address unless PROBE_ALLOW permits it).
 *   A name that resolves to nothing is listable (it points nowhere inward); the probe checks the
 *   address again whenever it fetches.
 * - MCP tools are never listed from traffic on a host bound to a seller token: only that token's
 *   publish writes there.
 */
import type { ListingInput } from '../shapes/listingInput.js';
import type { ProbeAllowList } from '../probe/addressPolicy.js';
import { checkFetchTarget, FetchFailure } from '../probe/safeFetch.js';

/** The publish module's view of seller-token hosts (BoundHosts). */
export interface HostBindings {
  bindsResource(resource: string): Promise<boolean>;
}

export class TrafficGate {
  constructor(
    private readonly allowList: ProbeAllowList,
    private readonly timeoutMs: number,
    private readonly hosts: HostBindings,
  ) {}

  /** Why `input` may not be written from traffic, or undefined when it may. */
  async refusal(input: ListingInput): Promise<string | undefined> {
    if (input.type === 'mcp') {
      return (await this.hosts.bindsResource(input.resource)) ? 'the host is bound to a seller token; only its publishes list tools there' : undefined;
    }
    try {
      await checkFetchTarget(input.resource, this.allowList, this.timeoutMs);
    } catch (err) {
      if (!(err instanceof FetchFailure)) throw err;
      if (err.reason === 'invalid_url' || err.reason === 'blocked_address') return err.message;
    }
    return undefined;
  }
}
