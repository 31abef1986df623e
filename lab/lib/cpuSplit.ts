/**
 * Elasticsearch on cores of its own (`bench-search --split-cores`, `bench-table --split-cores`): the
 * shape of a deployment, where gateways run on other hosts than the search nodes. On one machine
 * whose cores both serve, every millisecond of gateway CPU is a millisecond Elasticsearch does not
 * get, so "throughput through the gateway / direct" measures how cheap the gateway is next to
 * Elasticsearch, not whether it holds searches back; with the cores split, both sides get the same
 * Elasticsearch cores and the ratio shows what the gateway costs a client in requests per second.
 *
 * Pins the one local Elasticsearch node (its pid from the nodes info API; all its threads) to the
 * lower half of the cores and this process (all its threads; children started afterwards inherit
 * it, the gateway and the load generator included) to the upper half, with `taskset` (util-linux).
 * `restore` gives Elasticsearch its cores back; an interrupted run leaves it pinned until
 * `taskset -a -p -c 0-N PID` or a restart.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { ElasticsearchClient } from '../../src/door.js';

export interface CoreSplit {
  /** One line for the report: who runs on which cores. */
  description: string;
  restore(): void;
}

const taskset = (args: string[]) => execFileSync('taskset', args, { encoding: 'utf8' });

export async function splitCores(elasticsearch: ElasticsearchClient): Promise<CoreSplit> {
  const cores = availableParallelism();
  if (cores < 2) throw new Error('--split-cores needs at least two cores');
  const nodes = Object.values((await elasticsearch.nodes.info({ metric: 'process' })).nodes);
  if (nodes.length !== 1) throw new Error(`--split-cores pins one local Elasticsearch node; this cluster has ${nodes.length}`);
  const pid = nodes[0]!.process?.id;
  if (pid === undefined || !existsSync(`/proc/${pid}`)) throw new Error('--split-cores: the Elasticsearch node does not run on this machine');
  const mask = /affinity mask: ([0-9a-f]+)/.exec(taskset(['-p', String(pid)]))?.[1];
  if (mask === undefined) throw new Error(`--split-cores: could not read the affinity of pid ${pid}`);
  const half = Math.floor(cores / 2);
  const range = (from: number, to: number) => (from === to ? String(from) : `${from}-${to}`);
  const [search, rest] = [range(0, half - 1), range(half, cores - 1)];
  taskset(['-a', '-p', '-c', search, String(pid)]);
  const restore = () => void taskset(['-a', '-p', mask, String(pid)]);
  try {
    taskset(['-a', '-p', '-c', rest, String(process.pid)]);
  } catch (err) {
    restore();
    throw err;
  }
  return { description: `cores split: Elasticsearch (pid ${pid}) on CPU ${search}, the gateway and the load generator on CPU ${rest}`, restore };
}
