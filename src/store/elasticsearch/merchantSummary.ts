/** The aggregates of one merchant's live listings (search/merchantView.ts), in one size-0 search. */
import type { Client } from '@elastic/elasticsearch';
import { NOT_REMOVED } from './listingQueries.js';

export interface MerchantAggregates {
  listings: number;
  byType: Record<string, number>;
  networks: string[];
  settleCount7d: number;
  lastSettled?: string;
  firstSeen?: string;
  healthChecked: number;
  uptime7d?: number;
}

interface Aggregations {
  types: { buckets: Array<{ key: string; doc_count: number }> };
  networks: { buckets: Array<{ key: string; doc_count: number }> };
  settled: { value: number | null };
  lastSettled: { value: number | null; value_as_string?: string };
  firstSeen: { value: number | null; value_as_string?: string };
  checked: { value: number };
  uptime: { value: number | null };
}

const UPTIME = 'signals.health.uptime7d';

export class MerchantSummaryIndex {
  constructor(
    private readonly client: Client,
    private readonly alias: string,
  ) {}

  async summary(payTo: string): Promise<MerchantAggregates> {
    const response = await this.client.search({
      index: this.alias,
      size: 0,
      track_total_hits: true,
      query: { bool: { filter: [{ term: { 'payment.payTo': payTo } }], must_not: [NOT_REMOVED] } },
      aggs: {
        types: { terms: { field: 'type', size: 2 } },
        networks: { terms: { field: 'payment.network', size: 50 } },
        settled: { sum: { field: 'signals.settleCount7d' } },
        lastSettled: { max: { field: 'signals.lastSettled' } },
        firstSeen: { min: { field: 'firstSeen' } },
        checked: { value_count: { field: UPTIME } },
        uptime: { avg: { field: UPTIME } },
      },
    } as never);
    const total = (response.hits.total as { value: number } | undefined)?.value ?? 0;
    const aggs = response.aggregations as unknown as Aggregations;
    const date = (agg: { value: number | null }) => (agg.value === null ? undefined : new Date(agg.value).toISOString());
    const lastSettled = date(aggs.lastSettled);
    const firstSeen = date(aggs.firstSeen);
    return {
      listings: total,
      byType: Object.fromEntries(aggs.types.buckets.map((b) => [b.key, b.doc_count])),
      networks: aggs.networks.buckets.map((b) => b.key),
      settleCount7d: Math.round(aggs.settled.value ?? 0),
      ...(lastSettled ? { lastSettled } : {}),
      ...(firstSeen ? { firstSeen } : {}),
      healthChecked: aggs.checked.value,
      ...(aggs.uptime.value !== null ? { uptime7d: Math.round(aggs.uptime.value * 10_000) / 10_000 } : {}),
    };
  }
}
