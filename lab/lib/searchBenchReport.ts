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

export interface LiveShapeReport {
  rows: Row[];
  written: { signals: number; updates: number; seconds: number; cpuMsPerS: number };
  rates: { signals: number; updates: number };
  segments: number[];
  repeats: PagingRepeats;
  /** CPU a second with the writes going on and no request: Elasticsearch's, the gateway's. */
  quiet: { esMsPerS: number; gatewayMsPerS: number };
  /** The same rounds on a copy of the index merged into one segment, without writes. */
  oneSegment?: { rows: Row[]; repeats: PagingRepeats };
}

export interface PagingRepeats {
  searches: number;
  pages: number;
  listings: number;
  repeated: number;
}

const perSecond = (n: number, seconds: number) => (n / Math.max(seconds, 1)).toFixed(1);
const describeRepeats = (r: PagingRepeats) => `${r.repeated} repeated of ${r.listings} listings shown (${r.searches} searches, ${r.pages} pages)`;

/** The live shape's writes and paging, and the one-segment column beside the live one. */
export function printLiveShape(report: LiveShapeReport): void {
  const { written, rates, segments } = report;
  const sorted = [...segments].sort((a, b) => a - b);
  const lines = [
    '',
    `live writes: ${perSecond(written.signals, written.seconds)} signal updates/s and ${perSecond(written.updates, written.updates > 0 ? written.seconds : 1)} listing updates/s over ${written.seconds.toFixed(0)} s ` +
      `(asked ${rates.signals} and ${rates.updates}), applied through the write path in a process of its own (${written.cpuMsPerS.toFixed(0)} ms of CPU a second)`,
    `segments while measuring: median ${sorted[Math.floor(sorted.length / 2)] ?? '?'}, ${sorted[0] ?? '?'}-${sorted[sorted.length - 1] ?? '?'}`,
    `paging every mix search to its end through the gateway while writing: ${describeRepeats(report.repeats)}`,
    `with the writes going on and no request: Elasticsearch ${report.quiet.esMsPerS.toFixed(0)} ms of CPU a second, the gateway ${report.quiet.gatewayMsPerS.toFixed(1)}`,
    '',
    'CPU per request (ms) net of that (each request carries 1/rps of it in the tables above):',
    '',
    '| workload | ES, direct, net | x reference, net | ES behind the gateway, net | gateway process, net |',
    '|---|---|---|---|---|',
  ];
  const net = (m: Measured | undefined, perS: number, cpu: (m: Measured) => number | undefined) => (m && cpu(m) !== undefined ? cpu(m)! - perS / Math.max(m.rps, 1) : undefined);
  const refNet = net(report.rows.find((r) => r.label === 'reference query')!.direct, report.quiet.esMsPerS, (m) => m.esCpuMs)!;
  for (const { label, direct, gateway } of report.rows) {
    const d = net(direct, report.quiet.esMsPerS, (m) => m.esCpuMs)!;
    const behind = net(gateway, report.quiet.esMsPerS, (m) => m.esCpuMs);
    const gw = net(gateway, report.quiet.gatewayMsPerS, (m) => m.gatewayCpuMs);
    lines.push(`| ${label} | ${d.toFixed(2)} | ${(d / refNet).toFixed(2)}x | ${behind?.toFixed(2) ?? ''} | ${gw?.toFixed(2) ?? ''} |`);
  }
  const copy = report.oneSegment;
  if (copy) {
    const liveRef = report.rows.find((r) => r.label === 'reference query')!.direct.esCpuMs;
    const copyRef = copy.rows.find((r) => r.label === 'reference query')!.direct.esCpuMs;
    const cell = (m: Measured | undefined, reference: number) => (m ? `${m.esCpuMs.toFixed(2)} (${(m.esCpuMs / reference).toFixed(2)}x)` : '');
    lines.push(
      `paging the same on the one-segment copy, no writes: ${describeRepeats(copy.repeats)}`,
      '',
      'CPU per request (ms), live shape (headline) and a one-segment copy of the same index (second column), each x its own reference query:',
      '',
      '| workload | ES direct, live | ES direct, one segment | gateway CPU, live | gateway CPU, one segment | throughput / direct, live | one segment |',
      '|---|---|---|---|---|---|---|',
    );
    for (const row of report.rows) {
      const other = copy.rows.find((r) => r.label === row.label);
      const share = (r: Row | undefined) => (r?.gateway ? `${((100 * r.gateway.rps) / Math.max(r.direct.rps, 1)).toFixed(0)}%` : '');
      lines.push(
        `| ${row.label} | ${cell(row.direct, liveRef)} | ${cell(other?.direct, copyRef)} | ${row.gateway?.gatewayCpuMs?.toFixed(2) ?? ''} | ${other?.gateway?.gatewayCpuMs?.toFixed(2) ?? ''} | ${share(row)} | ${share(other)} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
