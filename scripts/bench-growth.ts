/**
 * Growth benchmark (docs/elasticsearch-cluster.md): how search and /discovery/resources cost
 * grows with the catalog. One scratch index grows through the write path (generated listings, like
 * any producer) to each size in turn; at each size the gateway serves the query mixes of the search
 * benchmark and the report gives p50/p99, throughput and the CPU Elasticsearch spent per request.
 *
 *   npx tsx scripts/bench-growth.ts [--sizes 10000,100000,1000000] [--connections 4] [--duration 10]
 *
 * CPU per request is only meaningful when nothing else uses the Elasticsearch node: point
 * ELASTICSEARCH_URL at a node of your own (e.g. `npm run cluster -- es start`), not a shared one.
 * Target: p50 at the largest size at most 2x the p50 at the smallest.
 */
import type { ChildProcess } from 'node:child_process';
import { loadConfig } from '../src/config.js';
import { dropDeploymentIndices, dropRedisPrefix } from '../src/store/deploymentData.js';
import { createElasticsearchClient } from '../src/store/elasticsearch.js';
import { createRedisClient } from '../src/store/redis.js';
import { loadGeneratedListings } from './lib/benchCatalog.js';
import { startServiceProcess } from './lib/benchService.js';
import { fail, numberOption, parseCommandLine, runMain } from './lib/cliOptions.js';
import { elasticsearchCpuMs, measure, median, processCpuMs, type Measured, type Target } from './lib/httpLoad.js';
import { resourcesMix, searchMix } from './lib/searchQueryMix.js';

const { values } = parseCommandLine(
  {
    options: {
      sizes: { type: 'string', default: '10000,100000,1000000' },
      connections: { type: 'string', default: '4' },
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '3' },
    },
  },
  'usage: bench-growth [--sizes N,N,...] [--connections N] [--duration S] [--rounds N]',
);
const sizes = values.sizes.split(',').map((size) => numberOption('sizes', size.trim(), { max: 10_000_000 }));
if (sizes.some((size, i) => i > 0 && size <= sizes[i - 1]!)) fail('--sizes must grow: e.g. 10000,100000,1000000');
const options = {
  connections: numberOption('connections', values.connections),
  duration: numberOption('duration', values.duration, { integer: false }),
  rounds: numberOption('rounds', values.rounds),
};

interface Row {
  size: number;
  loadPerSecond: number;
  search: Measured;
  resources: Measured;
}

async function main(): Promise<void> {
  const stamp = Date.now().toString(36);
  const env: Record<string, string> = {
    LISTINGS_ALIAS: `bench-growth-${stamp}`,
    LISTINGS_INDEX: `bench-growth-${stamp}-v1`,
    REDIS_PREFIX: `bench-growth:${stamp}:`,
    CURSOR_SECRET: `bench-growth-secret-${stamp}`,
  };
  const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 120_000 });
  const redis = createRedisClient(config.redisUrl);
  const rows: Row[] = [];
  let service: { child: ChildProcess; url: string } | undefined;
  try {
    let loaded = 0;
    for (const size of sizes) {
      service?.child.kill('SIGTERM');
      const started = Date.now();
      await loadGeneratedListings(env, size, { from: loaded });
      const loadPerSecond = Math.round((size - loaded) / ((Date.now() - started) / 1000));
      loaded = size;
      // Merged down as a long-lived index would be, so each size is measured in its steady state.
      await elasticsearch.indices.forcemerge({ index: config.listingsAlias, max_num_segments: 5 });
      service = await startServiceProcess(env);
      const child = service.child;
      const cpu = { esUrl: '', es: () => elasticsearchCpuMs(elasticsearch), gateway: () => processCpuMs(child.pid) };
      const run = async (name: string, path: string, mix: string[]) => {
        const target: Target = { name, url: service!.url, requests: mix.map((q) => ({ method: 'GET' as const, path: `${path}?${q}` })) };
        await measure(target, options, cpu, 3);
        const runs: Measured[] = [];
        for (let round = 0; round < options.rounds; round++) runs.push(await measure(target, options, cpu));
        return median(runs);
      };
      const row = { size, loadPerSecond, search: await run('search', '/discovery/search', searchMix()), resources: await run('resources', '/discovery/resources', resourcesMix()) };
      rows.push(row);
      process.stderr.write(`${size}: search p50 ${row.search.p50} ms, resources p50 ${row.resources.p50} ms\n`);
    }
    printReport(rows);
  } finally {
    service?.child.kill('SIGTERM');
    await dropDeploymentIndices(elasticsearch, config.listingsIndex, config.listingsAlias);
    await dropRedisPrefix(redis, config.redisPrefix);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

function printReport(rows: Row[]): void {
  const lines = [
    `${options.connections} connections, median of ${options.rounds} ${options.duration} s runs per size and workload`,
    '',
    '| listings | loaded at | search p50 / p99 | search req/s | ES CPU per search | resources p50 / p99 | resources req/s | ES CPU per resources page |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const { size, loadPerSecond, search, resources } of rows) {
    lines.push(
      `| ${size} | ${loadPerSecond}/s | ${search.p50} / ${search.p99} ms | ${search.rps.toFixed(0)} | ${search.esCpuMs.toFixed(2)} ms | ` +
        `${resources.p50} / ${resources.p99} ms | ${resources.rps.toFixed(0)} | ${resources.esCpuMs.toFixed(2)} ms |`,
    );
  }
  const first = rows[0]!;
  const last = rows[rows.length - 1]!;
  const growth = (a: number, b: number) => `${(b / Math.max(a, 0.001)).toFixed(2)}x`;
  lines.push(
    '',
    `p50 growth ${first.size} -> ${last.size}: search ${growth(first.search.p50, last.search.p50)}, resources ${growth(first.resources.p50, last.resources.p50)} (target at most 2x)`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain('bench-growth', main);
