/** Latency figures the benchmarks report, computed one way so that their numbers compare. */

/** Nearest-rank percentile of an ascending array; NaN when it is empty. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

/** Whole milliseconds; `latencies` may be in any order and is left as it is. */
export function latencySummary(latencies: number[]): { p50Ms: number; p95Ms: number; p99Ms: number; maxMs: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50Ms: Math.round(percentile(sorted, 50)),
    p95Ms: Math.round(percentile(sorted, 95)),
    p99Ms: Math.round(percentile(sorted, 99)),
    maxMs: Math.round(sorted[sorted.length - 1] ?? NaN),
  };
}
