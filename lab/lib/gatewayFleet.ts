/**
 * Several gateway processes on one scratch deployment (the same ES index and Redis prefix, each on
 * its own port), as the scale-out benchmarks run them, and the CPU counters they read: each
 * gateway's (/proc), Elasticsearch's (node stats) and the whole machine's (/proc/stat), so a report
 * can say whether Elasticsearch or the machine still had headroom.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { ElasticsearchClient } from '../../src/door.js';
import { startServiceProcess } from './benchService.js';
import { elasticsearchCpuMs, processCpuMs } from './httpLoad.js';

export interface Gateway {
  child: ChildProcess;
  url: string;
}

/** Started one after the other: tsx compiling in parallel would only slow every start on 2 cores. */
export async function startGateways(count: number, env: Record<string, string>, nodeArgs: string[] = []): Promise<Gateway[]> {
  const gateways: Gateway[] = [];
  try {
    for (let i = 0; i < count; i++) gateways.push(await startServiceProcess(env, nodeArgs));
  } catch (err) {
    await stopGateways(gateways);
    throw err;
  }
  return gateways;
}

/**
 * Resolves once every gateway exited (SIGKILL after `graceMs`): a gateway still stopping when the
 * caller drops the scratch deployment would re-create its index (the index keeper) and write keys.
 */
export async function stopGateways(gateways: Gateway[], graceMs = 30_000): Promise<void> {
  await Promise.all(
    gateways.map(({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
    }),
  );
}

/** Busy and total jiffies of all cores since boot (first line of /proc/stat; idle and iowait are not busy). */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

export interface CpuUse {
  wallMs: number;
  /** CPU ms per wall ms: 1.0 = one core fully used. */
  elasticsearchCores: number;
  gatewayCores: number;
  /** Share of all cores busy, every process counted (other engineers' work included). */
  machineBusy: number;
  /** 1-minute load average at the end of the interval. */
  loadAverage: number;
  elasticsearchCpuMs: number;
}

/** Starts counting; the returned function ends the interval and reports the CPU spent in it. */
export async function startCpuWindow(elasticsearch: ElasticsearchClient, gatewayPids: Array<number | undefined>): Promise<() => Promise<CpuUse>> {
  const gatewayCpu = () => gatewayPids.reduce<number>((sum, pid) => sum + (processCpuMs(pid) ?? 0), 0);
  const before = { es: await elasticsearchCpuMs(elasticsearch), gateways: gatewayCpu(), machine: machineJiffies(), at: performance.now() };
  return async () => {
    const after = { es: await elasticsearchCpuMs(elasticsearch), gateways: gatewayCpu(), machine: machineJiffies(), at: performance.now() };
    const wallMs = after.at - before.at;
    return {
      wallMs,
      elasticsearchCores: (after.es - before.es) / wallMs,
      gatewayCores: (after.gateways - before.gateways) / wallMs,
      machineBusy: (after.machine.busy - before.machine.busy) / Math.max(after.machine.total - before.machine.total, 1),
      loadAverage: loadavg()[0]!,
      elasticsearchCpuMs: after.es - before.es,
    };
  };
}

export const describeCpu = (cpu: CpuUse): string =>
  `ES ${cpu.elasticsearchCores.toFixed(2)} cores, gateways ${cpu.gatewayCores.toFixed(2)} cores, machine ${(cpu.machineBusy * 100).toFixed(0)}% busy, load ${cpu.loadAverage.toFixed(1)}`;
