/**
 * Shards and replicas of the listing index, from the environment (LISTINGS_SHARDS,
 * LISTINGS_REPLICAS; docs/elasticsearch-cluster.md). The shard count is fixed when an index is
 * created, so a change reaches a live deployment through `npm run reindex`; the replica count is a
 * dynamic setting and is applied to the live index when the service starts.
 */
import type { Client } from '@elastic/elasticsearch';
import type { IndexLayout } from '../../config/index.js';

/** The index settings of mappings/listings.json with the layout's shard and replica counts. */
export function settingsWithLayout(settings: Record<string, unknown>, layout: IndexLayout | undefined): Record<string, unknown> {
  if (!layout) return settings;
  const index = (settings.index ?? {}) as Record<string, unknown>;
  return { ...settings, index: { ...index, number_of_shards: layout.shards, number_of_replicas: layout.replicas } };
}

export interface LayoutCheck {
  shards: number;
  replicas: number;
  /** Set when the replica count was changed to the configured one. */
  replicasChangedFrom?: number;
  /** Set when the index has another shard count than configured (only a reindex changes it). */
  shardsWanted?: number;
}

export async function reconcileIndexLayout(client: Client, index: string, layout: IndexLayout): Promise<LayoutCheck> {
  const response = await client.indices.getSettings({ index, filter_path: '*.settings.index.number_of_*' });
  const current = Object.values(response)[0]?.settings?.index ?? {};
  const shards = Number(current.number_of_shards);
  const replicas = Number(current.number_of_replicas);
  const check: LayoutCheck = { shards, replicas };
  if (replicas !== layout.replicas) {
    await client.indices.putSettings({ index, settings: { index: { number_of_replicas: layout.replicas } } });
    check.replicas = layout.replicas;
    check.replicasChangedFrom = replicas;
  }
  if (shards !== layout.shards) check.shardsWanted = layout.shards;
  return check;
}
