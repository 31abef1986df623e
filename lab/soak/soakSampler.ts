/**
 * One sample of what a long run can leak (lab/soak/soak.ts): the gateway's resident memory, V8 heap
 * and event-loop delay (its /metrics, prom-client's default metrics, GatewayMetrics), the deployment's Redis (memory,
 * keys by kind, the write and dead-letter streams, the change log) and its listing index (documents
 * and bytes on disk).
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { ElasticsearchClient } from '../../src/door.js';
import { redisKeys } from '../../src/door.js';

export interface Sample {
  /** Minutes since the traffic started. */
  minute: number;
  rssMb: number;
  /** The lowest reading of the interval, and the worst event-loop delay of its 2-second windows (GatewayMetrics). */
  heapUsedMb: number;
  eventLoopP99Ms: number;
  eventLoopMaxMs: number;
  redisUsedMemoryMb: number;
  redisKeys: number;
  /** Keys kept per payment by design (settlement results, 8 days): expected to grow one per settle. */
  settlementResultKeys: number;
  /** Keys kept per on-chain authorization by design (the transaction journal, as long as the results). */
  journalEntries: number;
  /** Keys kept per mined settlement by design (the settlement log by hash, 30 days). */
  settlementLogEntries: number;
  /** State kept by design (KeptState), in MB of MEMORY USAGE. */
  settlementResultsMb: number;
  journalMb: number;
  settlementLogMb: number;
  settledAmountsMb: number;
  historyMb: number;
  /** Redis's keyspace hash tables (MEMORY STATS overhead.hashtable.main + .expires): they grow with the keys, mostly the settlement results. */
  keyspaceTablesMb: number;
  /** Settlements acknowledged so far. */
  settles: number;
  writeStreamLength: number;
  deadLetters: number;
  changeLogLength: number;
  indexDocs: number;
  indexDeletedDocs: number;
  indexMb: number;
  /** Requests sent so far, and 5xx answers so far. */
  requests: number;
  serverErrors: number;
}

const MB = 1024 * 1024;

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0) * 1024;
}

function metric(text: string, name: string): number {
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
}

/**
 * The state a settlement leaves in Redis by design, each family with why it is bounded:
 * - settlement results: one key per payment, kept 8 days (a replayed payload gets the same answer);
 * - the transaction journal (settle:tx): one key per authorization settled on chain, the signed
 *   transaction written before its broadcast, kept as long as the settlement results (a retry on
 *   any gateway answers with it); the used nonces themselves are the chain's (authorizationState);
 * - the settlement log (settlements:): each mined settlement by its hash, 30 days, and per payTo its
 *   newest 1,000 (GET /settlements: the evidence a seller checks), so it grows with the settlements;
 * - settled `upto` amounts: a sorted set per listing, capped (the 7-day median's samples);
 * - listing history: a list per listing, capped at 50 events (each settle of a listing adds one).
 */
const KEPT_FAMILIES = ['settlementResults', 'journal', 'settlementLog', 'settledAmounts', 'history'] as const;
type KeptFamily = (typeof KEPT_FAMILIES)[number];

function globRegExp(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

interface KeptState {
  bytes: Record<KeptFamily, number>;
  settlementResultKeys: number;
  journalEntries: number;
  settlementLogEntries: number;
  keyspaceTablesBytes: number;
}

/** One SCAN of the soak's own Redis: MEMORY USAGE of every key of a kept family, and the keys of the per-payment ones. */
async function keptState(redis: Redis, prefix: string): Promise<KeptState> {
  const keys = redisKeys(prefix);
  const families: Array<[KeptFamily, RegExp]> = [
    ['settlementResults', globRegExp(keys.settleResult('*'))],
    ['journal', globRegExp(keys.settleTx('*'))],
    ['settlementLog', globRegExp(keys.settlementByHash('*'))],
    ['settlementLog', globRegExp(keys.settlementsOfPayee('*'))],
    ['settledAmounts', globRegExp(keys.signalAmounts('*'))],
    ['history', globRegExp(`${keys.historyPrefix}*`)],
  ];
  const byHash = globRegExp(keys.settlementByHash('*'));
  const state: KeptState = { bytes: { settlementResults: 0, journal: 0, settlementLog: 0, settledAmounts: 0, history: 0 }, settlementResultKeys: 0, journalEntries: 0, settlementLogEntries: 0, keyspaceTablesBytes: 0 };
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    const kept = batch.flatMap((key) => {
      const match = families.find(([, pattern]) => pattern.test(key));
      return match ? [{ key, family: match[0] }] : [];
    });
    const pipeline = redis.pipeline();
    for (const { key } of kept) pipeline.memory('USAGE', key);
    const replies = (await pipeline.exec()) ?? [];
    kept.forEach(({ key, family }, at) => {
      state.bytes[family] += Number(replies[at]?.[1] ?? 0);
      if (family === 'settlementResults') state.settlementResultKeys += 1;
      if (family === 'journal') state.journalEntries += 1;
      // The per-payTo lists are a fixed pool (one per payee): only the by-hash keys grow in number.
      if (family === 'settlementLog' && byHash.test(key)) state.settlementLogEntries += 1;
    });
  } while (cursor !== '0');
  const stats = (await redis.call('MEMORY', 'STATS')) as unknown[];
  const db = stats[stats.indexOf('db.0') + 1];
  if (Array.isArray(db)) {
    for (const name of ['overhead.hashtable.main', 'overhead.hashtable.expires']) state.keyspaceTablesBytes += Number(db[db.indexOf(name) + 1] ?? 0);
  }
  return state;
}

export interface SamplerTargets {
  gatewayUrl: string;
  gatewayPid: number;
  /** The soak's own Redis: every key and every byte in it is the deployment's. */
  redis: Redis;
  prefix: string;
  elasticsearch: ElasticsearchClient;
  index: string;
}

/**
 * The gateway's /metrics, polled between samples (every scrape restarts prom-client's event-loop
 * histogram, so all of them are read here): per interval, the lowest V8 heap reading, which is the
 * heap right after a collection, the level a leak raises (single readings mostly show where the
 * sawtooth of allocation and collection happened to be), and the worst event-loop delay p99 and
 * maximum of the 2-second windows.
 */
export class GatewayMetrics {
  private interval = { heapFloor: Number.POSITIVE_INFINITY, loopP99: 0, loopMax: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly gatewayUrl: string, everyMs = 2000) {
    this.timer = setInterval(() => void this.read().catch(() => undefined), everyMs);
  }

  private async read(): Promise<void> {
    const text = await (await fetch(`${this.gatewayUrl}/metrics`)).text();
    const heap = metric(text, 'nodejs_heap_size_used_bytes');
    const [p99, max] = [metric(text, 'nodejs_eventloop_lag_p99_seconds'), metric(text, 'nodejs_eventloop_lag_max_seconds')];
    if (Number.isFinite(heap)) this.interval.heapFloor = Math.min(this.interval.heapFloor, heap);
    if (Number.isFinite(p99)) this.interval.loopP99 = Math.max(this.interval.loopP99, p99);
    if (Number.isFinite(max)) this.interval.loopMax = Math.max(this.interval.loopMax, max);
  }

  /** The interval since the last call (this call's own reading included); starts a new one. */
  async take(): Promise<{ heapFloor: number; loopP99: number; loopMax: number }> {
    await this.read().catch(() => undefined);
    const interval = this.interval;
    this.interval = { heapFloor: Number.POSITIVE_INFINITY, loopP99: 0, loopMax: 0 };
    return interval;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export async function takeSample(targets: SamplerTargets, minute: number, traffic: { requests: number; serverErrors: number; settles: number }, gateway: GatewayMetrics): Promise<Sample> {
  const keys = redisKeys(targets.prefix);
  const interval = await gateway.take();
  const memory = await targets.redis.info('memory');
  const [dbsize, kept, writeStreamLength, deadLetters, changeLogLength] = await Promise.all([
    targets.redis.dbsize(),
    keptState(targets.redis, targets.prefix),
    targets.redis.xlen(keys.writeStream),
    targets.redis.xlen(keys.deadLetters),
    targets.redis.xlen(keys.changes),
  ]);
  const stats = await targets.elasticsearch.indices.stats({ index: targets.index, metric: ['docs', 'store'] });
  const primaries = stats._all.primaries!;
  return {
    minute: Number(minute.toFixed(2)),
    rssMb: rssBytes(targets.gatewayPid) / MB,
    heapUsedMb: interval.heapFloor / MB,
    eventLoopP99Ms: interval.loopP99 * 1000,
    eventLoopMaxMs: interval.loopMax * 1000,
    redisUsedMemoryMb: Number(/^used_memory:(\d+)/m.exec(memory)?.[1] ?? 0) / MB,
    redisKeys: dbsize,
    settlementResultKeys: kept.settlementResultKeys,
    journalEntries: kept.journalEntries,
    settlementLogEntries: kept.settlementLogEntries,
    settlementResultsMb: kept.bytes.settlementResults / MB,
    journalMb: kept.bytes.journal / MB,
    settlementLogMb: kept.bytes.settlementLog / MB,
    settledAmountsMb: kept.bytes.settledAmounts / MB,
    historyMb: kept.bytes.history / MB,
    keyspaceTablesMb: kept.keyspaceTablesBytes / MB,
    writeStreamLength,
    deadLetters,
    changeLogLength,
    indexDocs: primaries.docs?.count ?? 0,
    indexDeletedDocs: primaries.docs?.deleted ?? 0,
    indexMb: (primaries.store?.size_in_bytes ?? 0) / MB,
    ...traffic,
  };
}
