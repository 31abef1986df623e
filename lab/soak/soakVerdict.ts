/**
 * The soak's end (lab/soak/soak.ts): every acknowledged write checked against what readers see, the
 * growth of each sampled series after the warm-up against its bound, and the report with its plots.
 *
 * Growth of a series = mean of the last third of the samples after the warm-up minus the mean of
 * the first third (thirds, not single samples: GC and merges make every series saw-toothed).
 * Bounds, and why:
 * - gateway RSS and V8 heap: +20%, judged only when at least 10 minutes follow the warm-up. A leak
 *   of even a few hundred bytes per request grows without end; a healthy process levels off once
 *   its caches (read cache, query embeddings, connection pools) are full, and then moves only with
 *   GC timing, well within a fifth. For the heap the lowest reading of each third is compared (the
 *   level right after a full collection): V8 lets the old generation grow for minutes between full
 *   collections, so in a shorter run even the lowest readings rise with a healthy process (a 90 s
 *   run went from 67 to 126 MB without one), and the bound would judge GC timing, not leaks.
 * - Redis keys other than settlement results, journal entries and the settlement log's by-hash
 *   entries: +5% (at least 25 keys). The
 *   traffic writes fixed pools, filled before the traffic starts, so every other key (listings,
 *   probes, signals, history, owners, the facilitator's sender lock and nonce) exists by the
 *   warm-up's end; what appears later is per-request litter.
 * - State a settlement keeps by design, measured each sample with MEMORY USAGE of its keys
 *   (lab/soak/soakSampler.ts KEPT_FAMILIES): settlement results and the transaction journal, one
 *   key each per payment kept 8 days (replays of a payment must get the same answer, on any
 *   gateway), and the settlement log (each mined settlement by hash for 30 days, per payTo the newest
 *   1,000: GET /settlements), so expected to grow all run, with Redis's keyspace hash tables that index them
 *   (MEMORY STATS); settled `upto` amounts and listing history, capped per listing. Redis used
 *   memory minus all of that: +10% (at least 1 MB). The used nonces are the chain's.
 * - journal entries: at the end at most one per settle sent (a journal entry is written once per
 *   authorization, before its transaction's broadcast).
 * - settlements on the dev chain (lab/lib/chainSettlements.ts): every acknowledged one found on
 *   chain exactly once, no payee paid other than the authorizations used for it, no facilitator
 *   transaction reverted or left pending.
 * - listing index documents and the change log: +2%. Fixed pools: the catalog's size is constant.
 *   The index's bytes on disk are plotted, not bounded: deleted documents stay until Lucene merges
 *   segments, a saw-tooth whose period is longer than a short run.
 * - the write stream: at most 200 entries in any sample (the consumer keeps up; a backlog that
 *   builds is a consumer falling behind) and empty at the end; no dead letter.
 * - 0 answers 5xx, and 0 acknowledged writes not served as written at the end.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { httpListingId } from '../../src/door.js';
import type { ElasticsearchClient } from '../../src/door.js';
import { redisKeys } from '../../src/door.js';
import { checkSettlementsOnChain, describeChainCheck, type ChainCheck } from '../lib/chainSettlements.js';
import type { Sample } from './soakSampler.js';
import { toolMark, type SoakTraffic } from './soakTraffic.js';
import { lineChartSvg } from '../lib/svgPlot.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FinalState {
  drainSeconds: number;
  /** Acknowledged writes checked, and those not served as written (each named). */
  checked: number;
  lost: string[];
  uncertainSkipped: number;
  announcesRejectedByTheProbe: number;
  /** The soak's settlements checked on the dev chain. */
  chain: ChainCheck;
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined || Date.now() > deadline) return value;
    await sleep(250);
  }
}

/** `firstBlock`: the dev chain's first block of the soak (its settlements are mined from there). */
export async function checkFinalState(url: string, traffic: SoakTraffic, redis: Redis, prefix: string, elasticsearch: ElasticsearchClient, alias: string, firstBlock: bigint): Promise<FinalState> {
  const keys = redisKeys(prefix);
  const started = Date.now();
  // Empty twice a second apart: the facilitator's traffic writes reach the stream a moment after the settle.
  let emptyOnce = false;
  await until(async () => {
    const pending = Number(((await redis.xpending(keys.writeStream, 'catalog-ingest')) as [number])[0] ?? 0);
    const empty = (await redis.xlen(keys.writeStream)) === 0 && pending === 0;
    const done = empty && emptyOnce;
    emptyOnce = empty;
    if (!done) await sleep(750);
    return done || undefined;
  }, 180_000);
  const drainSeconds = (Date.now() - started) / 1000;
  await elasticsearch.indices.refresh({ index: alias });
  const get = (id: string) => fetch(`${url}/discovery/resources/${id}`);
  const lost: string[] = [];
  let checked = 0;
  for (const [k, tool] of traffic.tools) {
    if (traffic.uncertain.has(k)) continue;
    checked += 1;
    const res = await get(tool.id);
    const body = res.status === 200 ? ((await res.json()) as { description?: string }) : undefined;
    if (tool.live && !body?.description?.includes(`version ${tool.version}:`)) lost.push(`tool ${k} (${tool.id}) published at version ${tool.version}: ${res.status} ${body?.description ?? ''}`);
    if (!tool.live && res.status !== 404) lost.push(`tool ${k} (${tool.id}) unpublished: still ${res.status}`);
  }
  // Searchable, not only stored: each live tool found by the word only its description has.
  for (const [k, tool] of [...traffic.tools].filter(([k, t]) => t.live && !traffic.uncertain.has(k))) {
    const res = await fetch(`${url}/discovery/search?q=${toolMark(k)}&limit=10`);
    const ids = res.status === 200 ? ((await res.json()) as { results: Array<{ id: string }> }).results.map((r) => r.id) : [];
    if (!ids.includes(tool.id)) lost.push(`tool ${k} (${tool.id}) is not found by search (HTTP ${res.status})`);
  }
  let rejected = 0;
  for (const [i, id] of traffic.announced) {
    checked += 1;
    const status = await until(async () => {
      const res = await fetch(`${url}/discovery/announce/status?id=${id}`);
      const value = res.status === 200 ? ((await res.json()) as { status: string }).status : undefined;
      return value === 'listed' || value === 'rejected' ? value : undefined;
    }, 60_000);
    if (status === 'rejected') rejected += 1;
    else if (status !== 'listed' || (await get(id)).status !== 200) lost.push(`announce ${i} (${id}): ${status ?? 'never probed'}`);
  }
  for (const j of traffic.settledResources) {
    checked += 1;
    const id = httpListingId(traffic.paidUrl(j), 'GET');
    if (!(await until(async () => ((await get(id)).status === 200 ? true : undefined), 30_000))) lost.push(`settled resource ${j} (${id}) is not listed`);
  }
  // The evidence a seller checks (GET /settlements/{transaction}): every acknowledged settlement by its hash.
  for (const settle of traffic.settles.filter((s) => s.acked)) {
    checked += 1;
    const found = await until(async () => ((await fetch(`${url}/settlements/${settle.transaction}`)).status === 200 ? true : undefined), 10_000);
    if (!found) lost.push(`settlement ${settle.transaction} is not served by GET /settlements/{transaction}`);
  }
  const chain = await checkSettlementsOnChain(traffic.settles, firstBlock);
  return { drainSeconds, checked, lost, uncertainSkipped: traffic.uncertain.size, announcesRejectedByTheProbe: rejected, chain };
}

export interface Growth {
  series: string;
  from: number;
  to: number;
  growth: number;
  bound: number;
  unit: string;
  passed: boolean;
}

export interface Verdict {
  passed: boolean;
  failures: string[];
  growth: Growth[];
  /** The state kept by design (not bounded by growth: explained), measured the same way. */
  kept: Array<Omit<Growth, 'bound' | 'passed'> & { why: string }>;
  /** Series not judged in this run, and why. */
  notJudged: string[];
  bytesPerSettlementResult: number;
  /** Journal entries at the end, and the settles sent (the most there may be). */
  journal: { entries: number; allowed: number };
}
const KEPT: Array<{ series: string; why: string; pick: (s: Sample) => number }> = [
  { series: 'settlement results', why: 'one per payment, 8 days (a replayed payload gets the same answer)', pick: (s) => s.settlementResultsMb },
  { series: 'keyspace hash tables', why: "Redis's index of the keys, growing with the settlement results", pick: (s) => s.keyspaceTablesMb },
  { series: 'transaction journal', why: 'one per authorization settled on chain, as long as the results (a retry on any gateway answers with its hash)', pick: (s) => s.journalMb },
  { series: 'settlement log', why: 'each mined settlement by hash (30 days) and per payTo its newest 1,000: GET /settlements', pick: (s) => s.settlementLogMb },
  { series: 'settled upto amounts', why: 'capped per listing (the 7-day median)', pick: (s) => s.settledAmountsMb },
  { series: 'listing history', why: 'capped at 50 events per listing; a settle adds one', pick: (s) => s.historyMb },
];
const keptMb = (s: Sample) => KEPT.reduce((sum, k) => sum + k.pick(s), 0);

/** Process memory is judged only over this long after the warm-up (see the header). */
const PROCESS_MEMORY_MIN_MINUTES = 10;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);

export function soakVerdict(samples: Sample[], options: { warmup: number }, traffic: SoakTraffic, final: FinalState): Verdict {
  const failures: string[] = [];
  const after = samples.filter((s) => s.minute >= options.warmup);
  const third = Math.max(1, Math.floor(after.length / 3));
  const [first, last] = [after.slice(0, third), after.slice(-third)];
  const lastSample = samples[samples.length - 1];
  const bytesPerSettlementResult = lastSample && lastSample.settlementResultKeys > 0 ? (lastSample.settlementResultsMb * 1024 * 1024) / lastSample.settlementResultKeys : 0;
  const kept = KEPT.map(({ series, why, pick }) => {
    const [from, to] = [mean(first.map(pick)), mean(last.map(pick))];
    return { series, why, from, to, growth: to - from, unit: 'MB' };
  });
  const journal = { entries: lastSample?.journalEntries ?? 0, allowed: traffic.counts.settle };
  if (journal.entries > journal.allowed) failures.push(`${journal.entries} transaction journal entries, more than the ${journal.allowed} settles sent`);
  const growth: Growth[] = [];
  const notJudged: string[] = [];
  const bound = (series: string, unit: string, pick: (s: Sample) => number, limit: (from: number) => number, adjust = 0, level = mean) => {
    const from = level(first.map(pick));
    const to = level(last.map(pick));
    const g = to - from - adjust;
    const b = limit(from);
    growth.push({ series, from, to, growth: g, bound: b, unit, passed: g <= b });
    if (g > b) failures.push(`${series} grew ${g.toFixed(2)} ${unit} after the warm-up (bound ${b.toFixed(2)})`);
  };
  if (after.length < 4) failures.push(`only ${after.length} samples after the warm-up (at least 4 needed: a longer run or a shorter --sample-seconds)`);
  else {
    if (after[after.length - 1]!.minute - options.warmup >= PROCESS_MEMORY_MIN_MINUTES) {
      bound('gateway RSS', 'MB', (s) => s.rssMb, (f) => 0.2 * f);
      bound('gateway V8 heap used (lowest reading)', 'MB', (s) => s.heapUsedMb, (f) => 0.2 * f, 0, (values) => Math.min(...values));
    } else notJudged.push(`gateway RSS and heap: fewer than ${PROCESS_MEMORY_MIN_MINUTES} minutes after the warm-up`);
    bound('Redis keys besides settlement results, journal and settlement log entries', 'keys', (s) => s.redisKeys - s.settlementResultKeys - s.journalEntries - s.settlementLogEntries, (f) => Math.max(25, 0.05 * f));
    bound('Redis used memory beyond the state kept by design', 'MB', (s) => s.redisUsedMemoryMb - keptMb(s), (f) => Math.max(1, 0.1 * f));
    bound('listing index documents', 'docs', (s) => s.indexDocs, (f) => 0.02 * f);
    bound('change log entries', 'entries', (s) => s.changeLogLength, (f) => Math.max(5, 0.02 * f));
  }
  const backlog = Math.max(...samples.map((s) => s.writeStreamLength));
  if (backlog > 200) failures.push(`the write stream held ${backlog} entries in a sample (bound 200)`);
  const deadLetters = samples[samples.length - 1]?.deadLetters ?? 0;
  if (deadLetters > 0) failures.push(`${deadLetters} dead letters`);
  const serverErrors = [...traffic.serverErrors.values()].reduce((a, b) => a + b, 0);
  if (serverErrors > 0) failures.push(`${serverErrors} answers 5xx: ${JSON.stringify(Object.fromEntries(traffic.serverErrors))}`);
  if (final.lost.length > 0) failures.push(`${final.lost.length} acknowledged writes not served as written: ${final.lost.slice(0, 5).join('; ')}`);
  if (!final.chain.passed) {
    const named = [...final.chain.lost, ...final.chain.duplicated, ...final.chain.balanceMismatches].slice(0, 5);
    failures.push(`settlements not on chain exactly once: ${describeChainCheck(final.chain)}${named.length ? ` (${named.join('; ')})` : ''}`);
  }
  return { passed: failures.length === 0, failures, growth, kept, notJudged, bytesPerSettlementResult, journal };
}

const PLOTS: Array<{ file: string; title: string; unit: string; pick: (s: Sample) => number }> = [
  { file: 'rss.svg', title: 'Gateway resident memory', unit: 'MB', pick: (s) => s.rssMb },
  { file: 'heap.svg', title: 'Gateway V8 heap used', unit: 'MB', pick: (s) => s.heapUsedMb },
  { file: 'event-loop.svg', title: 'Gateway event-loop delay: worst 2-second p99 of each interval', unit: 'ms', pick: (s) => s.eventLoopP99Ms },
  { file: 'redis-memory.svg', title: 'Redis used memory', unit: 'MB', pick: (s) => s.redisUsedMemoryMb },
  { file: 'redis-memory-beyond-kept.svg', title: 'Redis used memory beyond the state kept by design', unit: 'MB', pick: (s) => s.redisUsedMemoryMb - keptMb(s) },
  { file: 'journal.svg', title: 'Transaction journal entries (one per authorization settled on chain, 8 days)', unit: 'entries', pick: (s) => s.journalEntries },
  { file: 'redis-keys.svg', title: 'Redis keys besides settlement results, journal and settlement log entries', unit: 'keys', pick: (s) => s.redisKeys - s.settlementResultKeys - s.journalEntries - s.settlementLogEntries },
  { file: 'settlement-results.svg', title: 'Settlement results kept (one per payment, 8 days)', unit: 'keys', pick: (s) => s.settlementResultKeys },
  { file: 'write-stream.svg', title: 'Write stream length (entries not yet applied)', unit: 'entries', pick: (s) => s.writeStreamLength },
  { file: 'change-log.svg', title: 'Change log entries', unit: 'entries', pick: (s) => s.changeLogLength },
  { file: 'index-docs.svg', title: 'Listing index documents', unit: 'docs', pick: (s) => s.indexDocs },
  { file: 'index-size.svg', title: 'Listing index size on disk', unit: 'MB', pick: (s) => s.indexMb },
];

export interface ReportInput {
  options: { minutes: number; warmup: number; sampleSeconds: number; concurrency: number; pauseMs: number };
  samples: Sample[];
  traffic: SoakTraffic;
  final: FinalState;
  verdict: Verdict;
  persistence?: { durable: boolean; summary: string };
  requests: number;
}

export function writeReport(dir: string, input: ReportInput): void {
  const { options, samples, traffic, final, verdict } = input;
  writeFileSync(join(dir, 'samples.json'), `${JSON.stringify(samples, null, 1)}\n`);
  for (const plot of PLOTS) {
    writeFileSync(join(dir, plot.file), lineChartSvg({ title: plot.title, unit: plot.unit, points: samples.map((s) => [s.minute, plot.pick(s)]), warmupEnd: options.warmup }));
  }
  const f = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2));
  const lastSample = samples[samples.length - 1]!;
  const lines = [
    `# Soak: ${options.minutes} minutes of mixed traffic`,
    '',
    `${verdict.passed ? '**PASS**' : `**FAIL**: ${verdict.failures.join('; ')}`}`,
    '',
    `Run of \`npm run bench -- soak --minutes ${options.minutes} --warmup ${options.warmup} --sample-seconds ${options.sampleSeconds} --concurrency ${options.concurrency} --pause-ms ${options.pauseMs}\`, ${new Date().toISOString().slice(0, 16)} UTC, one gateway; ${input.requests} requests (${Object.entries(traffic.counts).map(([k, v]) => `${k} ${v}`).join(', ')}), ${(input.requests / (options.minutes * 60)).toFixed(1)} requests/s.`,
    `Redis persistence (its /readyz): ${input.persistence ? `${input.persistence.durable ? 'durable' : 'NOT durable'}: ${input.persistence.summary}` : 'unknown'}.`,
    '',
    '## Checks',
    '',
    `- answers 5xx: ${[...traffic.serverErrors.values()].reduce((a, b) => a + b, 0)}; requests without an answer: ${[...traffic.failures.values()].reduce((a, b) => a + b, 0)}`,
    `- acknowledged writes checked at the end: ${final.checked} (publishes and unpublishes as last written, every live tool also found by search, announces listed, settled resources listed, acknowledged settlements served by their hash); not served as written: ${final.lost.length}${final.lost.length ? ` (${final.lost.slice(0, 10).join('; ')})` : ''}; skipped (their last write got no answer): ${final.uncertainSkipped}; announces the probe rejected: ${final.announcesRejectedByTheProbe}`,
    `- write stream drained ${final.drainSeconds.toFixed(1)} s after the traffic stopped; largest sampled backlog ${Math.max(...samples.map((s) => s.writeStreamLength))} entries; dead letters ${lastSample.deadLetters}`,
    `- settles acknowledged: ${traffic.settlesAcknowledged}; one settlement result kept costs Redis ${verdict.bytesPerSettlementResult.toFixed(0)} bytes (MEMORY USAGE)`,
    `- settlements on the dev chain: ${describeChainCheck(final.chain)}${final.chain.lost.length + final.chain.duplicated.length + final.chain.balanceMismatches.length ? ` (${[...final.chain.lost, ...final.chain.duplicated, ...final.chain.balanceMismatches].slice(0, 10).join('; ')})` : ''}`,
    `- transaction journal entries at the end: ${verdict.journal.entries} (at most one per settle sent: ${verdict.journal.allowed})`,
    '',
    `## Growth after the warm-up (${options.warmup} min): mean of the last third of the samples minus the first third`,
    '',
    '| series | first third | last third | growth | bound | |',
    '|---|---|---|---|---|---|',
    ...verdict.growth.map((g) => `| ${g.series} | ${f(g.from)} ${g.unit} | ${f(g.to)} ${g.unit} | ${f(g.growth)} | ${f(g.bound)} | ${g.passed ? 'ok' : 'FAIL'} |`),
    ...verdict.notJudged.map((n) => `\nNot judged: ${n} (plotted below).`),
    '',
    '## State kept by design (subtracted from Redis used memory above; MEMORY USAGE of its keys)',
    '',
    '| state | first third | last third | growth | why it is kept |',
    '|---|---|---|---|---|',
    ...verdict.kept.map((k) => `| ${k.series} | ${f(k.from)} MB | ${f(k.to)} MB | ${f(k.growth)} | ${k.why} |`),
    '',
    'Bounds and why: lab/soak/soakVerdict.ts (header). Event-loop delay, worst 2-second p99 per interval: ' +
      `${f(Math.min(...samples.map((s) => s.eventLoopP99Ms)))} to ${f(Math.max(...samples.map((s) => s.eventLoopP99Ms)))} ms (max ${f(Math.max(...samples.map((s) => s.eventLoopMaxMs)))} ms); plotted, not bounded (the machine is shared).`,
    '',
    '## Plots',
    '',
    ...PLOTS.map((p) => `![${p.title}](${p.file})`),
    '',
  ];
  writeFileSync(join(dir, 'report.md'), lines.join('\n'));
}
