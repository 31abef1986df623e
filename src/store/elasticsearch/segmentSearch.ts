/**
 * Whether the cluster searches a shard's segments in parallel (`search.query_phase_parallel_collection_enabled`,
 * on by default since Elasticsearch 8.12). Then the approximate kNN search of ranked search can
 * return other near-tied neighbours on each run, and a later page, ranked with other neighbours
 * than the first, can repeat its listings (docs/catalog-reads.md, "Cursors"). The service's own
 * scripts start nodes with it off; the server says so at start when a cluster has it on.
 */
import type { Client } from '@elastic/elasticsearch';

/** The setting, under `search` (the response nests it: `{"defaults": {"search": {...}}}`). */
const NAME = 'query_phase_parallel_collection_enabled';

export async function searchesSegmentsInParallel(client: Client): Promise<boolean> {
  const response = await client.cluster.getSettings({ include_defaults: true, filter_path: `*.search.${NAME}` });
  const levels = response as unknown as Partial<Record<'transient' | 'persistent' | 'defaults', { search?: Record<string, unknown> }>>;
  const at = (level: 'transient' | 'persistent' | 'defaults') => levels[level]?.search?.[NAME];
  // The most specific wins: transient over persistent over the nodes' own (defaults).
  const value = at('transient') ?? at('persistent') ?? at('defaults');
  return String(value ?? 'true') !== 'false';
}
