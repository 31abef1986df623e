/**
 * A listing's whole `signals` block as the catalog stores it: the 7-day counters (counters.ts)
 * with the health of the checks in the window (health.ts; null for a listing never checked).
 */
import type { FlushedSignals } from './window.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { HealthChecks } from '../store/redis/healthChecks.js';
import type { SignalCounters } from './counters.js';
import { summarizeChecks } from './health.js';

export class ListingSignals {
  constructor(
    private readonly counters: Pick<SignalCounters, 'read'>,
    private readonly health: Pick<HealthChecks, 'checksOf'> | undefined,
    private readonly clock: Clock = systemClock,
  ) {}

  async read(listingIds: string[]): Promise<Map<string, FlushedSignals>> {
    const [counts, checks] = await Promise.all([this.counters.read(listingIds), this.health?.checksOf(listingIds, this.clock())]);
    const out = new Map<string, FlushedSignals>();
    for (const id of listingIds) {
      const listingChecks = checks?.get(id);
      out.set(id, { ...counts.get(id)!, health: (listingChecks && summarizeChecks(listingChecks)) ?? null });
    }
    return out;
  }
}
