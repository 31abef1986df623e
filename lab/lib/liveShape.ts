/**
 * A live catalog for `bench-search --live` (docs/catalog-reads.md, "Cost"): writes while it is
 * searched (lab/lib/liveWriter.ts, a process of its own), the index's segment count sampled while
 * the rounds run, repeated listings counted while paging, and the one-segment copy the second
 * column is measured on (a clone of the live index, force-merged, so the live index keeps its shape).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ElasticsearchClient } from '../../src/door.js';
import { processCpuMs } from './httpLoad.js';

export interface LiveRates {
  /** Listings whose signals block a flush writes, per second. */
  signals: number;
  /** Listings rewritten (a probe's new price), per second. */
  updates: number;
}

/** Realistic rates per 100,000 listings: settlements and health checks, and re-probes that change a price. */
export function defaultRates(count: number): LiveRates {
  return { signals: Math.max(1, Math.round((30 * count) / 100_000)), updates: Math.max(1, Math.round((2 * count) / 100_000)) };
}

export interface Written {
  signals: number;
  updates: number;
  seconds: number;
  /** The writer process's CPU, ms per second of writing. */
  cpuMsPerS: number;
}

export interface LiveWriter {
  stop(): Promise<Written>;
}

/** Starts the writer under its own Redis prefix (the measured gateway applies none of its writes); resolves once it writes. */
export async function startLiveWriter(env: Record<string, string>, count: number, rates: LiveRates): Promise<LiveWriter> {
  const entry = fileURLToPath(new URL('./liveWriter.ts', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, ...env, REDIS_PREFIX: `${env.REDIS_PREFIX}live-writer:`, LIVE_COUNT: String(count), LIVE_SIGNAL_RATE: String(rates.signals), LIVE_UPDATE_RATE: String(rates.updates) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the live writer did not start within 120 s')), 120_000);
    const check = () => {
      if (!out.includes('live writer ready')) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve();
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`the live writer exited with ${code}`)));
  });
  const cpuBefore = processCpuMs(child.pid) ?? 0;
  return {
    async stop() {
      const cpu = (processCpuMs(child.pid) ?? 0) - cpuBefore;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) throw new Error('the live writer printed no summary');
      const written = JSON.parse(line) as { signals: number; updates: number; startedAt: number; stoppedAt: number };
      const seconds = (written.stoppedAt - written.startedAt) / 1000;
      return { signals: written.signals, updates: written.updates, seconds, cpuMsPerS: cpu / Math.max(seconds, 1) };
    },
  };
}

/** The index's segment count (primaries) every `everyMs` until stopped: the live shape the rounds saw. */
export function sampleSegments(elasticsearch: ElasticsearchClient, index: string, everyMs = 2000): { stop(): Promise<number[]> } {
  const samples: number[] = [];
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const stats = await elasticsearch.indices.stats({ index, metric: ['segments'] }).catch(() => undefined);
      const segments = stats?._all.primaries?.segments?.count;
      if (segments !== undefined) samples.push(segments);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopping = true;
      await loop;
      return samples;
    },
  };
}

export function describeSegments(samples: number[]): string {
  if (samples.length === 0) return 'no segment count sampled';
  const sorted = [...samples].sort((a, b) => a - b);
  return `segments while measuring: median ${sorted[Math.floor(sorted.length / 2)]}, ${sorted[0]}-${sorted[sorted.length - 1]} (${samples.length} samples)`;
}

/**
 * Pages through each search to the end (or `maxPages`) through the gateway and counts the
 * listings a later page showed again: what "pages never repeat a listing" promises.
 */
export async function pagingRepeats(url: string, searches: string[], maxPages: number): Promise<{ searches: number; pages: number; listings: number; repeated: number }> {
  let [pages, listings, repeated] = [0, 0, 0];
  for (const query of searches) {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const answer = (await (await fetch(`${url}/discovery/search?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json()) as { results?: Array<{ id: string }>; nextCursor?: string };
      pages += 1;
      for (const { id } of answer.results ?? []) {
        listings += 1;
        if (seen.has(id)) repeated += 1;
        seen.add(id);
      }
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
  }
  return { searches: searches.length, pages, listings, repeated };
}

/**
 * A copy of the live index merged into one segment, under an alias of its own: a clone (hard links
 * of the segments, after a moment's write block on the source), then a force-merge of the copy.
 */
export async function oneSegmentCopy(elasticsearch: ElasticsearchClient, alias: string): Promise<{ alias: string; index: string; drop(): Promise<void> }> {
  const source = Object.keys(await elasticsearch.indices.getAlias({ name: alias }))[0]!;
  const index = `${source}-one-segment`;
  const copyAlias = `${alias}-one-segment`;
  await elasticsearch.indices.delete({ index, ignore_unavailable: true });
  await elasticsearch.indices.putSettings({ index: source, settings: { 'index.blocks.write': true } });
  try {
    await elasticsearch.indices.clone({ index: source, target: index, settings: { 'index.blocks.write': null } as never, aliases: { [copyAlias]: {} } });
  } finally {
    await elasticsearch.indices.putSettings({ index: source, settings: { 'index.blocks.write': null } as never });
  }
  // Yellow: the clone keeps the source's replica count, which a one-node cluster never allocates.
  await elasticsearch.cluster.health({ index, wait_for_status: 'yellow', timeout: '120s' });
  await elasticsearch.indices.forcemerge({ index, max_num_segments: 1, wait_for_completion: true }, { requestTimeout: 3_600_000 });
  await elasticsearch.indices.refresh({ index });
  return { alias: copyAlias, index, drop: async () => void (await elasticsearch.indices.delete({ index, ignore_unavailable: true })) };
}
