/**
 * Gateway scaling benchmark (issue 14, docs/elasticsearch-cluster.md): the same catalog served by
 * 1, 2 and 3 gateway processes (src/server.ts, each on its own port, one Elasticsearch and one
 * Redis) while a fixed number of client connections is spread round robin over them (autocannon
 * against each gateway at once, so no proxy takes CPU of its own). Per gateway count and workload:
 * req/s, p50/p99, and the CPU Elasticsearch, the gateways and the whole machine used meanwhile.
 *
 *   npx tsx lab/bench/gateways.ts [--listings 10000] [--gateways 1,2,3] [--connections 12] [--duration 10] [--rounds 3] [--semantic]
 *
 * The catalog is loaded through the write path into a scratch index, without the embedding model
 * (EMBEDDING_MODEL_DIR=/nonexistent: text ranking only), and deleted afterwards.
 *
 * --semantic: the full ranking as deployed, with the model in the gateways, and a third workload
 * where no query repeats (distinct queries, as many agents typing their own words send): each
 * search then costs its gateway a query embedding (single-threaded, in the gateway process), the
 * gateway's own work that more gateways share out. The listings get approximate embeddings
 * (lab/lib/benchVectors.ts), as in bench-search.
 */
import { loadConfig } from '../../src/door.js';
import { dropDeploymentData } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { createRedisClient } from '../../src/door.js';
import { loadGeneratedListings } from '../lib/benchCatalog.js';
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { describeCpu, startCpuWindow, startGateways, stopGateways, type CpuUse, type Gateway } from '../lib/gatewayFleet.js';
import { measure, median, type Measured } from '../lib/httpLoad.js';
import { distinctSearchQueries, resourcesMix, searchMix } from '../lib/searchQueryMix.js';
import { addApproximateEmbeddings } from '../lib/benchVectors.js';
import { createLogger } from '../../src/door.js';
import { sharedEmbedder } from '../../src/door.js';

const { values } = parseCommandLine(
  {
    options: {
      listings: { type: 'string', default: '10000' },
      gateways: { type: 'string', default: '1,2,3' },
      connections: { type: 'string', default: '12' },
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '3' },
      semantic: { type: 'boolean', default: false },
    },
  },
  'usage: bench-gateways [--listings N] [--gateways 1,2,3] [--connections N] [--duration S] [--rounds N] [--semantic]',
);
const listings = numberOption('listings', values.listings, { max: 1_000_000 });
const gatewayCounts = values.gateways.split(',').map((n) => numberOption('gateways', n.trim(), { max: 8 }));
const connections = numberOption('connections', values.connections);
const duration = numberOption('duration', values.duration, { integer: false });
const rounds = numberOption('rounds', values.rounds);
const semantic = values.semantic;
/** Distinct queries handed to each gateway per round: more than one gateway answers in a round, so none repeats. */
const distinctPerRound = Math.ceil(duration * 1000);
if (gatewayCounts.some((n) => connections % n !== 0)) fail('--connections must divide evenly among every gateway count (e.g. 12 for 1,2,3)');

interface Row {
  gateways: number;
  workload: string;
  load: Measured;
  cpu: CpuUse;
}

/** One round: every gateway loaded at once with its share of the connections. */
async function loadAll(gateways: Gateway[], path: string, mixOf: (gateway: number) => string[], durationS: number, distinctOnly = false): Promise<Measured> {
  // Elasticsearch CPU is counted once for all gateways by the caller's window, not per autocannon run.
  const perGateway = await Promise.all(
    gateways.map((g, i) => {
      const requests = mixOf(i).map((q) => ({ method: 'GET' as const, path: `${path}?${q}` }));
      return measure({ name: path, url: g.url, requests }, { connections: connections / gateways.length, duration: durationS }, { esUrl: '', es: async () => 0, gateway: () => undefined });
    }),
  );
  for (const [i, m] of perGateway.entries()) {
    if (distinctOnly && m.rps * durationS > mixOf(i).length) process.stderr.write(`note: gateway ${i} answered more requests than its mix holds; queries repeated\n`);
  }
  const rps = perGateway.reduce((sum, m) => sum + m.rps, 0);
  return {
    name: path,
    // autocannon gives percentiles per run, not histograms: the request-weighted mean of the gateways' p50s, the worst p99.
    p50: Math.round((perGateway.reduce((sum, m) => sum + m.p50 * m.rps, 0) / Math.max(rps, 1)) * 10) / 10,
    p99: Math.max(...perGateway.map((m) => m.p99)),
    rps,
    errors: perGateway.reduce((sum, m) => sum + m.errors, 0),
    esCpuMs: 0,
  };
}

async function main(): Promise<void> {
  const stamp = Date.now().toString(36);
  const env: Record<string, string> = {
    LISTINGS_ALIAS: `bench-gateways-${stamp}`,
    LISTINGS_INDEX: `bench-gateways-${stamp}-v1`,
    REDIS_PREFIX: `bench-gateways:${stamp}:`,
    READ_CACHE_MS: '0', // the engine's cost: every request goes to Elasticsearch
    CURSOR_SECRET: `bench-gateways-secret-${stamp}`,
  };
  // Text ranking only, unless --semantic (then only the load runs without the model: approximate embeddings follow).
  const withoutModel = { ...env, EMBEDDING_MODEL_DIR: '/nonexistent' };
  const gatewayEnv = semantic ? env : withoutModel;
  const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 120_000 });
  const redis = createRedisClient(config.redisUrl);
  const rows: Row[] = [];
  let gateways: Gateway[] = [];
  try {
    await loadGeneratedListings(withoutModel, listings);
    if (semantic) {
      await addApproximateEmbeddings(elasticsearch, config.listingsAlias, sharedEmbedder(config, createLogger('warn')), (done) =>
        process.stderr.write(`\rapproximate embeddings: ${done}/${listings}`),
      );
      process.stderr.write('\n');
    }
    await elasticsearch.indices.forcemerge({ index: config.listingsAlias, max_num_segments: 5 });
    const distinct = semantic ? distinctSearchQueries(Math.max(...gatewayCounts) * (rounds + 1) * distinctPerRound) : [];
    for (const count of gatewayCounts) {
      gateways = await startGateways(count, gatewayEnv);
      // Fresh gateways start with empty query caches, so each gateway count may use the pool again.
      let nextSlice = 0;
      const freshSlices = (): ((gateway: number) => string[]) => {
        const slices = gateways.map(() => distinct.slice(nextSlice, (nextSlice += distinctPerRound)));
        return (gateway) => slices[gateway]!;
      };
      const workloads: Array<readonly [string, string, () => (gateway: number) => string[], boolean]> = [
        ['search', '/discovery/search', () => () => searchMix(), false],
        ['resources', '/discovery/resources', () => () => resourcesMix(), false],
        ...(semantic ? [['search, distinct queries', '/discovery/search', freshSlices, true] as const] : []),
      ];
      for (const [workload, path, mixes, distinctOnly] of workloads) {
        await loadAll(gateways, path, mixes(), 3, distinctOnly); // warm-up: JIT, connection pools, ES caches
        const runs: Array<{ load: Measured; cpu: CpuUse }> = [];
        for (let round = 0; round < rounds; round++) {
          const stop = await startCpuWindow(elasticsearch, gateways.map((g) => g.child.pid));
          const load = await loadAll(gateways, path, mixes(), duration, distinctOnly);
          runs.push({ load, cpu: await stop() });
        }
        const load = median(runs.map((r) => r.load));
        const cpu = runs.find((r) => r.load.rps === load.rps)!.cpu;
        rows.push({ gateways: count, workload, load, cpu });
        process.stderr.write(`${count} gateway(s) ${workload}: ${load.rps.toFixed(0)} req/s, p50 ${load.p50} ms, p99 ${load.p99} ms; ${describeCpu(cpu)}\n`);
      }
      await stopGateways(gateways);
      gateways = [];
    }
    printReport(rows);
  } finally {
    await stopGateways(gateways);
    await dropDeploymentData(elasticsearch, redis, config);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

function printReport(rows: Row[]): void {
  const lines = [
    `${listings} listings, ${semantic ? 'full ranking with the model in the gateways' : 'text ranking (model off)'}, ${connections} connections spread over the gateways, median of ${rounds} ${duration} s rounds (CPU of the median round)`,
    '',
    '| gateways | workload | req/s | p50 / p99 | errors | ES CPU (cores) | ES CPU per request | gateways CPU (cores) | gateway CPU per request | machine busy | load average |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { gateways, workload, load, cpu } of rows) {
    const requests = Math.max(load.rps * (cpu.wallMs / 1000), 1);
    const perRequest = cpu.elasticsearchCpuMs / requests;
    const gatewayPerRequest = (cpu.gatewayCores * cpu.wallMs) / requests;
    lines.push(
      `| ${gateways} | ${workload} | ${load.rps.toFixed(0)} | ${load.p50} / ${load.p99} ms | ${load.errors} | ${cpu.elasticsearchCores.toFixed(2)} | ` +
        `${perRequest.toFixed(2)} ms | ${cpu.gatewayCores.toFixed(2)} | ${gatewayPerRequest.toFixed(2)} ms | ${(cpu.machineBusy * 100).toFixed(0)}% | ${cpu.loadAverage.toFixed(1)} |`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain('bench-gateways', main);
