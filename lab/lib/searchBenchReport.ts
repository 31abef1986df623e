/**
 * bench-search's report: each workload through the gateway and straight to Elasticsearch, then the
 * CPU per request of both sides with the multiple of the reference query (lab/lib/benchTable.ts
 * reads these two tables back).
 */
import { loadavg } from 'node:os';
import type { Measured } from './httpLoad.js';

export interface ReportOptions {
  connections: number;
  rounds: number;
  duration: number;
  /** What the reference query finds for the mix (bench-search countReferencePages). */
  referencePages?: string;
  /** How the cores were split between Elasticsearch and the rest (lab/lib/cpuSplit.ts), if they were. */
  split?: string;
}

export interface Row {
  label: string;
  direct: Measured;
  gateway?: Measured | undefined;
}

export function printReport(rows: Row[], options: ReportOptions, count: number, settled: string): void {
  const reference = rows.find((r) => r.label === 'reference query')!.direct;
  const ms = (n: number | undefined) => (n === undefined ? '' : n.toFixed(2));
  const lines = [
    `${count} listings, ${options.connections} connections, median of ${options.rounds} alternating ${options.duration} s runs per target; load average ${loadavg()[0]!.toFixed(2)} after`,
    settled,
    ...(options.referencePages ? [options.referencePages] : []),
    ...(options.split ? [options.split] : []),
    '',
    '| workload | gateway p50 | gateway p99 | gateway req/s | direct ES p50 | direct ES p99 | direct ES req/s | p50 ratio | throughput ratio | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { label, gateway, direct } of rows) {
    if (!gateway) {
      lines.push(`| ${label} | | | | ${direct.p50} ms | ${direct.p99} ms | ${direct.rps.toFixed(0)} | | | ${direct.errors} |`);
      continue;
    }
    lines.push(
      `| ${label} | ${gateway.p50} ms | ${gateway.p99} ms | ${gateway.rps.toFixed(0)} | ${direct.p50} ms | ${direct.p99} ms | ${direct.rps.toFixed(0)} | ` +
        `${(gateway.p50 / Math.max(direct.p50, 0.001)).toFixed(2)}x | ${((100 * gateway.rps) / Math.max(direct.rps, 1)).toFixed(0)}% | ${gateway.errors + direct.errors} |`,
    );
  }
  lines.push(
    '',
    'CPU per request (ms), the same rounds on the same index:',
    '',
    '| workload | ES, direct | ES, direct, x reference | ES behind the gateway | gateway process |',
    '|---|---|---|---|---|',
  );
  for (const { label, gateway, direct } of rows) {
    lines.push(`| ${label} | ${ms(direct.esCpuMs)} | ${(direct.esCpuMs / reference.esCpuMs).toFixed(2)}x | ${ms(gateway?.esCpuMs)} | ${ms(gateway?.gatewayCpuMs)} |`);
  }
  const plain = rows.find((r) => r.label === 'search rank')?.gateway;
  const explain = rows.find((r) => r.label === 'search explain=1')?.gateway;
  if (plain && explain) lines.push('', `explain=1 p50 / plain p50 (gateway): ${(explain.p50 / Math.max(plain.p50, 0.001)).toFixed(2)}x`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
