/**
 * One sample of what a long run can leak (scripts/soak.ts): the gateway's resident memory, V8 heap
 * and event-loop delay (its /metrics, prom-client's default metrics, GatewayMetrics), the deployment's Redis (memory,
 * keys by kind, the write and dead-letter streams, the change log) and its listing index (documents
 * and bytes on disk).
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import type { ElasticsearchClient } from '../../src/store/elasticsearch/client.js';
import { redisKeys } from '../../src/store/redis/redisKeys.js';

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

async function countKeys(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    count += keys.length;
  } while (cursor !== '0');
  return count;
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

export async function takeSample(targets: SamplerTargets, minute: number, traffic: { requests: number; serverErrors: number }, gateway: GatewayMetrics): Promise<Sample> {
  const keys = redisKeys(targets.prefix);
  const interval = await gateway.take();
  const memory = await targets.redis.info('memory');
  const [dbsize, settlementResultKeys, writeStreamLength, deadLetters, changeLogLength] = await Promise.all([
    targets.redis.dbsize(),
    countKeys(targets.redis, keys.settleResult('*')),
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
    settlementResultKeys,
    writeStreamLength,
    deadLetters,
    changeLogLength,
    indexDocs: primaries.docs?.count ?? 0,
    indexDeletedDocs: primaries.docs?.deleted ?? 0,
    indexMb: (primaries.store?.size_in_bytes ?? 0) / MB,
    ...traffic,
  };
}
