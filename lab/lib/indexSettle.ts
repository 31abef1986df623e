/**
 * Cost measurements on a freshly written index measure its merges too (a run right after a load
 * gave 2-3x the Elasticsearch CPU per search of the same run on a settled index). The benchmarks
 * measure only once the index has no merge running, optionally after a force-merge, and say so.
 */
import type { ElasticsearchClient } from '../../src/door.js';

export interface SettledIndex {
  /** Segments of the index's primaries when measuring started. */
  segments: number;
  /** Seconds spent waiting for running merges to finish. */
  waitedS: number;
  forceMerged?: number;
}

async function mergeState(elasticsearch: ElasticsearchClient, index: string): Promise<{ running: number; segments: number }> {
  const stats = await elasticsearch.indices.stats({ index, metric: ['merge', 'segments'] });
  const primaries = stats._all.primaries;
  return { running: primaries?.merges?.current ?? 0, segments: primaries?.segments?.count ?? 0 };
}

/**
 * A force merge as a task, polled: a merge waited for in one request outlasts the client's timeout
 * (the service's 10 s, which a request's own timeout cannot raise) on an index of vectors of any size.
 */
async function forceMerge(elasticsearch: ElasticsearchClient, index: string, maxSegments: number, deadline: number): Promise<void> {
  const { task } = (await elasticsearch.indices.forcemerge({ index, max_num_segments: maxSegments, wait_for_completion: false })) as { task?: string };
  if (!task) return;
  for (;;) {
    const state = await elasticsearch.tasks.get({ task_id: task });
    if (state.error) throw new Error(`force merge of ${index} failed: ${JSON.stringify(state.error)}`);
    if (state.completed) return;
    if (Date.now() > deadline) throw new Error(`force merge of ${index} to ${maxSegments} segments still running (task ${task})`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/**
 * Refreshes, optionally force-merges to `maxSegments`, then waits until no merge has run for three
 * checks a second apart (a refresh can start one), at most `timeoutMs`.
 */
export async function settleIndex(elasticsearch: ElasticsearchClient, index: string, options: { maxSegments?: number; timeoutMs?: number } = {}): Promise<SettledIndex> {
  const started = Date.now();
  await elasticsearch.indices.refresh({ index });
  if (options.maxSegments !== undefined) {
    await forceMerge(elasticsearch, index, options.maxSegments, started + (options.timeoutMs ?? 1_800_000));
    await elasticsearch.indices.refresh({ index });
  }
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  let quiet = 0;
  let state = await mergeState(elasticsearch, index);
  while (quiet < 3) {
    if (Date.now() > deadline) throw new Error(`index ${index} still merging after ${Math.round((Date.now() - started) / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    state = await mergeState(elasticsearch, index);
    quiet = state.running === 0 ? quiet + 1 : 0;
  }
  return {
    segments: state.segments,
    waitedS: Math.round((Date.now() - started) / 1000),
    ...(options.maxSegments !== undefined ? { forceMerged: options.maxSegments } : {}),
  };
}

export function describeSettled(index: string, settled: SettledIndex): string {
  const merged = settled.forceMerged !== undefined ? `force-merged to at most ${settled.forceMerged} segments, ` : '';
  return `index ${index}: ${merged}no merge running (checked 3 s in a row; waited ${settled.waitedS} s), ${settled.segments} segments`;
}
