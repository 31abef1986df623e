/**
 * HTTP load for the benchmarks that measure reads (bench-search, bench-growth): autocannon over a
 * rotating list of requests, with latency, throughput and the CPU each request cost Elasticsearch
 * (node stats) and the gateway process (/proc), and the median over rounds.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { ElasticsearchClient } from '../../src/door.js';

export interface Target {
  name: string;
  url: string;
  requests: Array<{ method: 'GET' | 'POST'; path: string; body?: string }>;
}

export interface Measured {
  name: string;
  p50: number;
  p99: number;
  rps: number;
  errors: number;
  /** CPU time per completed request: Elasticsearch's, and the gateway process's (gateway runs). */
  esCpuMs: number;
  gatewayCpuMs?: number;
  /** The part of gatewayCpuMs spent in the kernel (stime): on loopback, sockets' TCP paths of both ends. */
  gatewaySystemCpuMs?: number;
}

/** Load-independent cost: CPU the processes spent, from ES node stats and /proc for the gateway. */
export interface CpuProbe {
  esUrl: string;
  es(): Promise<number>;
  gateway(): number | undefined;
  /** The gateway's kernel (system) CPU ms so far, when it is asked for. */
  gatewaySystem?(): number | undefined;
}

/** A search sent straight to Elasticsearch: the body POSTed to `/INDEX/_search` with its URL parameters. */
export function directSearchRequest(index: string, params: Record<string, unknown>, body: unknown): Target['requests'][number] {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)] as [string, string]));
  return { method: 'POST', path: `/${index}/_search?${query}`, body: JSON.stringify(body) };
}

export function processCpuMs(pid: number | undefined): number | undefined {
  const split = processCpuSplitMs(pid);
  return split && split.user + split.system;
}

/** A process's user and system (kernel) CPU ms so far, from /proc. */
export function processCpuSplitMs(pid: number | undefined): { user: number; system: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    // utime and stime (fields 14, 15) in clock ticks of 10 ms; the name field may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return undefined;
  }
}

/**
 * Where each target's next run starts in its request list: a warm-up and the rounds of one target
 * go on through the list instead of each replaying its start, so a list of texts that never repeat
 * (search texts, a Zipf sequence) is not answered from the gateway's caches in a later round.
 */
const positions = new WeakMap<Target, number>();

export async function measure(target: Target, options: { connections: number; duration: number }, cpu: CpuProbe, durationS = options.duration): Promise<Measured> {
  let next = positions.get(target) ?? 0;
  const [esBefore, gatewayBefore, systemBefore] = [await cpu.es(), cpu.gateway(), cpu.gatewaySystem?.()];
  const result = await autocannon({
    url: target.url,
    connections: options.connections,
    duration: durationS,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => {
          const item = target.requests[next++ % target.requests.length]!;
          return { ...request, method: item.method, path: item.path, ...(item.body ? { body: item.body } : {}) };
        },
      },
    ],
  });
  positions.set(target, next);
  const [esAfter, gatewayAfter, systemAfter] = [await cpu.es(), cpu.gateway(), cpu.gatewaySystem?.()];
  const done = Math.max(result.requests.total, 1);
  const measured: Measured = {
    name: target.name,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    errors: result.errors + result.non2xx + result.timeouts,
    esCpuMs: (esAfter - esBefore) / done,
  };
  if (target.url !== cpu.esUrl && gatewayBefore !== undefined && gatewayAfter !== undefined) measured.gatewayCpuMs = (gatewayAfter - gatewayBefore) / done;
  if (systemBefore !== undefined && systemAfter !== undefined) measured.gatewaySystemCpuMs = (systemAfter - systemBefore) / done;
  return measured;
}

/** CPU milliseconds every node of the cluster has used so far. */
export async function elasticsearchCpuMs(elasticsearch: ElasticsearchClient): Promise<number> {
  const stats = await elasticsearch.nodes.stats({ metric: 'process' });
  return Object.values(stats.nodes).reduce((sum, node) => sum + (node.process?.cpu?.total_in_millis ?? 0), 0);
}

/** The middle of the values (the upper one of the two middles of an even count). */
export function middle(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

export function median(runs: Measured[]): Measured {
  return {
    name: runs[0]!.name,
    p50: middle(runs.map((r) => r.p50)),
    p99: middle(runs.map((r) => r.p99)),
    rps: middle(runs.map((r) => r.rps)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    esCpuMs: middle(runs.map((r) => r.esCpuMs)),
    ...(runs[0]!.gatewayCpuMs !== undefined ? { gatewayCpuMs: middle(runs.map((r) => r.gatewayCpuMs ?? 0)) } : {}),
    ...(runs[0]!.gatewaySystemCpuMs !== undefined ? { gatewaySystemCpuMs: middle(runs.map((r) => r.gatewaySystemCpuMs ?? 0)) } : {}),
  };
}

