/**
 * Puts the listings nobody announced on the health schedule (docs/health.md): every MCP
 * tool, and every HTTP listing known only from settlements. Told of each applied catalog write (an
 * AppliedWritesObserver beside the change log's), it gives such a listing a health-only probe
 * record unless it has one (ProbeStore.watch). The first check comes one health interval after
 * the listing appears, as for announced listings (the write itself counts as the first sighting).
 */
import type { AnnounceSettings } from '../config/announceSettings.js';
import type { Clock } from '../core/clock.js';
import type { AppliedWrite, AppliedWritesObserver } from '../store/catalogOperations.js';
import type { ListingDocument } from '../store/listingDocument.js';
import type { ProbeStore, WatchRequest } from '../store/redis/probeStore.js';
import { callArguments, mcpEndpoint } from './mcpCheck.js';

type Settings = Pick<AnnounceSettings, 'mcpCheckScheme' | 'healthIdleIntervalMs'>;

/** The health-only record a stored listing needs, or undefined when it needs none. */
export function watchFor(doc: ListingDocument, dueAt: number, scheme: Settings['mcpCheckScheme']): WatchRequest | undefined {
  if (doc.removed) return undefined;
  if (doc.type === 'mcp' && doc.name) {
    return { id: doc.id, watch: 'mcp', resource: mcpEndpoint(doc.resource, scheme), method: 'POST', toolName: doc.name, callArguments: JSON.stringify(callArguments(doc.inputSchema)), dueAt };
  }
  // A templated listing has no one URL to fetch; announced listings have their own probe record.
  // (Listings from traffic date from before issue 43: traffic writes none now.) Checked with a safe
  // method only: nobody proved this resource answers anything else without side effects.
  if (doc.type === 'http' && doc.source === 'traffic' && !doc.resource.includes('{')) {
    return { id: doc.id, watch: 'http', resource: doc.resource, method: doc.method === 'HEAD' ? 'HEAD' : 'GET', dueAt };
  }
  return undefined;
}

export class HealthEnrollment implements AppliedWritesObserver {
  constructor(
    private readonly probes: Pick<ProbeStore, 'watch'>,
    private readonly settings: Settings,
    private readonly now: Clock,
  ) {}

  async applied(writes: AppliedWrite[]): Promise<void> {
    const dueAt = this.now() + this.settings.healthIdleIntervalMs;
    const watches = writes.flatMap((w) => (w.operation.op === 'upsert' ? [watchFor(w.operation.doc, dueAt, this.settings.mcpCheckScheme)] : []));
    await Promise.all(watches.filter((w): w is WatchRequest => w !== undefined).map((w) => this.probes.watch(w)));
  }
}
