/**
 * Which resource hosts some seller token is bound to: on those hosts only a token's publish may
 * write an MCP listing (issue 9), so the facilitator asks here before it lists a tool it saw in
 * payment traffic. Revoked tokens count too: a host a seller once claimed is never left for traffic
 * to describe. The token list is cached for `ttlMs`, and dropped at once when this process issues or
 * revokes a token; a token issued by another process (`npm run tokens`) counts within `ttlMs`.
 */
import { hostIsBound, resourceAuthority } from './hostBinding.js';
import type { SellerTokenStore } from './sellerTokens.js';

export class BoundHosts {
  private cached: { hosts: string[]; at: number; version: number } | undefined;
  private loading: Promise<string[]> | undefined;

  constructor(
    private readonly tokens: SellerTokenStore,
    private readonly ttlMs = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when the host of `resource` (`mcp://host/tool`, `https://host/...`) is bound to a token. */
  async bindsResource(resource: string): Promise<boolean> {
    const authority = resourceAuthority(resource);
    // A resource without a readable host is nobody's to claim, and nothing traffic could list either.
    if (!authority) return true;
    return hostIsBound(await this.hosts(), authority);
  }

  private async hosts(): Promise<string[]> {
    const { cached } = this;
    if (cached && cached.version === this.tokens.version && this.now() - cached.at < this.ttlMs) return cached.hosts;
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<string[]> {
    const version = this.tokens.version;
    const hosts = [...new Set((await this.tokens.list()).flatMap((token) => token.hosts))];
    this.cached = { hosts, at: this.now(), version };
    return hosts;
  }
}
