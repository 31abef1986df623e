/**
 * Per-shard sequence numbers of an index, for the reindex's catch-up (docs/reindex.md): every
 * write to a shard gets the next `_seq_no`, and a document carries the `_seq_no` of the write that
 * last changed it. So "every document changed since checkpoint C" is a range query on `_seq_no`
 * per shard, and what it returns is the document as it is now, removals (a flag) included.
 */
import type { Client } from '@elastic/elasticsearch';

/** shard number -> sequence number at or below which every write is processed on every copy. */
export type Checkpoints = Map<number, number>;

interface ShardCopyStats {
  routing?: { state?: string };
  seq_no?: { max_seq_no?: number; local_checkpoint?: number; global_checkpoint?: number };
}

async function shardCopies(client: Client, index: string): Promise<Map<number, ShardCopyStats[]>> {
  const response = await client.indices.stats({ index, level: 'shards', metric: 'docs', filter_path: 'indices.*.shards' });
  const shards = (Object.values(response.indices ?? {})[0] as { shards?: Record<string, ShardCopyStats[]> } | undefined)?.shards ?? {};
  const out = new Map<number, ShardCopyStats[]>();
  for (const [shard, copies] of Object.entries(shards)) out.set(Number(shard), copies.filter((c) => c.routing?.state === 'STARTED'));
  return out;
}

/**
 * The lowest local checkpoint over the started copies of each shard: a write at or below it is in
 * Lucene on every copy, so it is visible to a search after the next refresh whichever copy answers.
 * Lower than necessary is safe (the catch-up reads a little more), higher would lose writes.
 */
export async function readCheckpoints(client: Client, index: string): Promise<Checkpoints> {
  const checkpoints: Checkpoints = new Map();
  for (const [shard, copies] of await shardCopies(client, index)) {
    const locals = copies.map((c) => c.seq_no?.local_checkpoint ?? -1);
    checkpoints.set(shard, locals.length > 0 ? Math.min(...locals) : -1);
  }
  return checkpoints;
}

/** True when every copy of every shard processed every write issued so far (nothing in flight). */
export async function allWritesProcessed(client: Client, index: string): Promise<boolean> {
  for (const copies of (await shardCopies(client, index)).values()) {
    const max = Math.max(-1, ...copies.map((c) => c.seq_no?.max_seq_no ?? -1));
    if (copies.some((c) => (c.seq_no?.local_checkpoint ?? -1) < max)) return false;
  }
  return true;
}

/** The primary term of each shard (it grows when a primary is reassigned, e.g. on reopening). */
export async function primaryTerms(client: Client, index: string): Promise<number[]> {
  const state = await client.cluster.state({ metric: 'metadata', index, filter_path: 'metadata.indices.*.primary_terms' });
  const indices = (state as { metadata?: { indices?: Record<string, { primary_terms?: Record<string, number> }> } }).metadata?.indices ?? {};
  return Object.values(Object.values(indices)[0]?.primary_terms ?? {});
}
