/**
 * Growth benchmark (docs/elasticsearch-cluster.md): how search and /discovery/resources cost
 * grows with the catalog. One scratch index grows through the write path (generated listings, like
 * any producer) to each size in turn; at each size the gateway serves the query mixes of the search
 * benchmark and the report gives p50/p99, throughput and the CPU Elasticsearch spent per request.
 *
 *   npx tsx lab/bench/growth.ts [--sizes 10000,100000,1000000] [--connections 4] [--duration 10]
 *                                   [--stamp NAME --keep] [--load-only] [--semantic]
 *
 * Each size is its own scratch deployment (index + Redis prefix), loaded with the first N listings
 * of the same generated sequence and force-merged to 5 segments, as a long-lived index would be.
 * Loading 1M takes long on a small machine and its rate does not matter here, while the
 * measurements want a quiet one: `--stamp g1 --keep --load-only` loads (and keeps) the catalogs,
 * and a later `--stamp g1` measures them (a size already loaded is not loaded again; without
 * --keep the deployments are deleted at the end). The embedding model is off (text ranking): the
 * gateway's embedding worker would otherwise embed the catalog during the measurement. With
 * `--semantic` every listing gets an approximate embedding after loading (lab/lib/benchVectors.ts,
 * marked as embedded so no worker redoes it) and the gateway runs with the model, so searches carry
 * the kNN clause as shipped (use a stamp of its own: a catalog loaded without embeddings stays so).
 *
 * At each size the fixed reference query (lab/lib/referenceQuery.ts) is sent straight to
 * Elasticsearch in the same rounds, and the search's CPU is also given as a multiple of it.
 *
 * CPU per request is only meaningful when nothing else uses the Elasticsearch node: point
 * ELASTICSEARCH_URL at a node of your own (e.g. `npm run cluster -- es start`), not a shared one.
 * Target: p50 at the largest size at most 2x the p50 at the smallest.
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { loadConfig } from '../../src/door.js';
import { dropDeploymentIndices } from '../../src/door.js';
import { dropRedisPrefix } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { createRedisClient } from '../../src/door.js';
import { ChangeLog } from '../../src/door.js';
import { loadGeneratedListings } from '../lib/benchCatalog.js';
import { startServiceProcess } from '../lib/benchService.js';
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { elasticsearchCpuMs, measure, median, processCpuMs, type CpuProbe, type Measured, type Target } from '../lib/httpLoad.js';
import { resourcesMix, searchMix } from '../lib/searchQueryMix.js';
import { referenceSearchBody } from '../lib/referenceQuery.js';
import { addApproximateEmbeddings } from '../lib/benchVectors.js';
import { createLogger } from '../../src/door.js';
import { elasticsearchNodeUrls } from '../../src/door.js';
import { parseReadRequest } from '../../src/door.js';
import { sharedEmbedder } from '../../src/door.js';

const { values } = parseCommandLine(
  {
    options: {
      sizes: { type: 'string', default: '10000,100000,1000000' },
      connections: { type: 'string', default: '4' },
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '3' },
      stamp: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'load-only': { type: 'boolean', default: false },
      semantic: { type: 'boolean', default: false },
    },
  },
  'usage: bench-growth [--sizes N,N,...] [--connections N] [--duration S] [--rounds N] [--stamp NAME] [--keep] [--load-only] [--semantic]',
);
const sizes = values.sizes.split(',').map((size) => numberOption('sizes', size.trim(), { max: 10_000_000 }));
if (sizes.some((size, i) => i > 0 && size <= sizes[i - 1]!)) fail('--sizes must grow: e.g. 10000,100000,1000000');
const options = {
  connections: numberOption('connections', values.connections),
  duration: numberOption('duration', values.duration, { integer: false }),
  rounds: numberOption('rounds', values.rounds),
};

const stamp = values.stamp ?? Date.now().toString(36);
if (!/^[a-z0-9-]{1,20}$/.test(stamp)) fail('--stamp: 1-20 characters of a-z, 0-9 and -');
const keep = values.keep || values['load-only'];

interface Row {
  size: number;
  /** Listings/s of the load that filled this size's catalog, when this run loaded it. */
  loadPerSecond?: number;
  search: Measured;
  reference: Measured;
  resources: Measured;
  /** 1-minute load average after this size's measurement. */
  loadAverage: number;
}

/** One size's scratch deployment: the same names in every run with the same stamp. */
function deploymentOf(size: number): Record<string, string> {
  return {
    LISTINGS_ALIAS: `bench-growth-${stamp}-${size}`,
    LISTINGS_INDEX: `bench-growth-${stamp}-${size}-v1`,
    REDIS_PREFIX: `bench-growth:${stamp}:${size}:`,
    READ_CACHE_MS: '0', // the engine's cost: every request goes to Elasticsearch
    CURSOR_SECRET: `bench-growth-secret-${stamp}`,
    ...(values.semantic ? {} : { EMBEDDING_MODEL_DIR: '/nonexistent' }),
  };
}

async function main(): Promise<void> {
  const base = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
  // Force-merging a million listings takes minutes.
  const elasticsearch = createElasticsearchClient(base.elasticsearchUrl, { requestTimeoutMs: 3_600_000 });
  const redis = createRedisClient(base.redisUrl);
  const rows: Row[] = [];
  let service: { child: ChildProcess; url: string } | undefined;
  try {
    for (const size of sizes) {
      const env = deploymentOf(size);
      const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'warn' });
      const present = await elasticsearch.count({ index: config.listingsAlias }).then((r) => r.count, () => 0);
      let loadPerSecond: number | undefined;
      if (present < size) {
        const started = Date.now();
        await loadGeneratedListings({ ...env, EMBEDDING_MODEL_DIR: '/nonexistent' }, size, { from: present });
        loadPerSecond = Math.round((size - present) / ((Date.now() - started) / 1000));
      }
      // Also after a load that stopped half-way: only listings without a vector are read.
      let embedded = 0;
      if (values.semantic) {
        const texts = await addApproximateEmbeddings(elasticsearch, config.listingsAlias, sharedEmbedder(config, createLogger('warn')), (done) => {
          embedded = done;
          process.stderr.write(`\r${size}: approximate embeddings ${done}/${size}`);
        });
        process.stderr.write(`\n${size}: ${texts} distinct texts embedded\n`);
      }
      if (loadPerSecond !== undefined || embedded > 0) {
        // Merged down as a long-lived index would be, so each size is measured in its steady state.
        await elasticsearch.indices.forcemerge({ index: config.listingsAlias, max_num_segments: 5 });
      }
      if (values['load-only']) {
        process.stderr.write(`${size}: loaded${loadPerSecond ? ` at ${loadPerSecond}/s` : ' already'}, kept as ${config.listingsAlias}\n`);
        continue;
      }
      service = await startServiceProcess(env);
      const child = service.child;
      // Start-up work first: a catalog loaded before the change feed was marked complete is read
      // once for the feed (src/changes/feedSeeder.ts), and measured alongside it would count.
      const seeding = Date.now();
      const feed = new ChangeLog(redis, config.redisPrefix);
      while (!(await feed.isSeeded())) {
        if (Date.now() - seeding > Math.max(600_000, size)) fail(`${size}: the gateway's change feed seeding did not finish`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      if (Date.now() - seeding > 1000) process.stderr.write(`${size}: waited ${((Date.now() - seeding) / 1000).toFixed(1)} s for the change feed seeding\n`);
      const cpu = { esUrl: '', es: () => elasticsearchCpuMs(elasticsearch), gateway: () => processCpuMs(child.pid) };
      const run = async (name: string, path: string, mix: string[]) => {
        const target: Target = { name, url: service!.url, requests: mix.map((q) => ({ method: 'GET' as const, path: `${path}?${q}` })) };
        await measure(target, options, cpu, 3);
        const runs: Measured[] = [];
        for (let round = 0; round < options.rounds; round++) runs.push(await measure(target, options, cpu));
        return median(runs);
      };
      const search = await run('search', '/discovery/search', searchMix());
      const reference = await runReference(config.listingsAlias, base.elasticsearchUrl, cpu);
      const row = { size, loadPerSecond, search, reference, resources: await run('resources', '/discovery/resources', resourcesMix()), loadAverage: loadavg()[0]! };
      rows.push(row);
      process.stderr.write(`${size}: search p50 ${row.search.p50} ms, resources p50 ${row.resources.p50} ms, load average ${row.loadAverage.toFixed(1)}\n`);
      service.child.kill('SIGTERM');
      service = undefined;
    }
    if (rows.length > 0) printReport(rows);
  } finally {
    service?.child.kill('SIGTERM');
    if (!keep) {
      for (const size of sizes) {
        const config = loadConfig({ ...process.env, ...deploymentOf(size), LOG_LEVEL: 'warn' });
        await dropDeploymentIndices(elasticsearch, config.listingsIndex, config.listingsAlias);
        await dropRedisPrefix(redis, config.redisPrefix);
      }
    }
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

/** The fixed reference query over the same mix, straight to Elasticsearch: the yardstick at this size. */
async function runReference(alias: string, elasticsearchUrl: string, cpu: CpuProbe): Promise<Measured> {
  const esUrl = elasticsearchNodeUrls(elasticsearchUrl)[0]!;
  const requests = searchMix().map((q) => ({
    method: 'POST' as const,
    path: `/${alias}/_search?filter_path=hits.hits._source`,
    body: JSON.stringify(referenceSearchBody(parseReadRequest('search', Object.fromEntries(new URLSearchParams(q))))),
  }));
  const target: Target = { name: 'reference query (direct ES)', url: esUrl, requests };
  const probe = { ...cpu, esUrl };
  await measure(target, options, probe, 3);
  const runs: Measured[] = [];
  for (let round = 0; round < options.rounds; round++) runs.push(await measure(target, options, probe));
  return median(runs);
}

function printReport(rows: Row[]): void {
  const lines = [
    `${options.connections} connections, median of ${options.rounds} ${options.duration} s runs per size and workload`,
    '',
    '| listings | loaded at | search p50 / p99 | search req/s | ES CPU per search | reference ES CPU | search / reference | resources p50 / p99 | resources req/s | ES CPU per resources page | load average |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { size, loadPerSecond, search, reference, resources, loadAverage } of rows) {
    lines.push(
      `| ${size} | ${loadPerSecond ? `${loadPerSecond}/s` : 'earlier run'} | ${search.p50} / ${search.p99} ms | ${search.rps.toFixed(0)} | ${search.esCpuMs.toFixed(2)} ms | ` +
        `${reference.esCpuMs.toFixed(2)} ms | ${(search.esCpuMs / Math.max(reference.esCpuMs, 0.001)).toFixed(2)}x | ` +
        `${resources.p50} / ${resources.p99} ms | ${resources.rps.toFixed(0)} | ${resources.esCpuMs.toFixed(2)} ms | ${loadAverage.toFixed(1)} |`,
    );
  }
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  const growth = (a: number, b: number) => `${(b / Math.max(a, 0.001)).toFixed(2)}x`;
  lines.push(
    '',
    `p50 growth ${first.size} -> ${last.size}: search ${growth(first.search.p50, last.search.p50)}, resources ${growth(first.resources.p50, last.resources.p50)}; ` +
      `reference query p50 ${growth(first.reference.p50, last.reference.p50)}${values.semantic ? ' (semantic retrieval on: approximate embeddings)' : ' (semantic retrieval off)'}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain('bench-growth', main);
