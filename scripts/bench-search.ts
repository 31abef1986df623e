/**
 * Search benchmark (docs/catalog-reads.md): the service's read endpoints against the very same
 * Elasticsearch queries sent straight to Elasticsearch, at the same concurrency, in one run.
 *
 *   npx tsx scripts/bench-search.ts                        load 100,000 generated listings into a
 *                                                          scratch index, measure, delete it
 *   npx tsx scripts/bench-search.ts --alias listings-bench reuse an index (e.g. bench-ingest --keep)
 *   options: --count N (default 100000) --connections N (16) --duration S (10 per round)
 *            --rounds N (3) --keep
 *
 * The machine is shared, so load drifts during a run: each workload alternates direct and gateway
 * runs for several rounds and reports the median of each figure.
 * Only targets 127.0.0.1. The service runs as a child process (node + tsx) so the load generator
 * and the gateway do not share one event loop.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { buildCatalogSearch } from '../src/search/index.js';
import { searchParamsFor } from '../src/store/listingQueries.js';
import { parseReadRequest, type ReadEndpoint } from '../src/search/readRequest.js';
import { createElasticsearchClient } from '../src/store/elasticsearch.js';
import { createRedisClient } from '../src/store/redis.js';
import { dropDeploymentIndices, dropRedisPrefix } from '../src/store/deploymentData.js';
import { loadGeneratedListings } from './lib/benchCatalog.js';
import { startServiceProcess } from './lib/benchService.js';
import { numberOption, parseCommandLine, runMain } from './lib/cliOptions.js';
import { resourcesMix, searchMix } from './lib/searchQueryMix.js';

interface Options {
  alias?: string;
  count: number;
  connections: number;
  duration: number;
  rounds: number;
  keep: boolean;
}

function readOptions(): Options {
  const { values } = parseCommandLine(
    {
      options: {
        alias: { type: 'string' },
        count: { type: 'string', default: '100000' },
        connections: { type: 'string', default: '16' },
        duration: { type: 'string', default: '10' },
        rounds: { type: 'string', default: '3' },
        keep: { type: 'boolean', default: false },
      },
    },
    'usage: bench-search [--alias ALIAS] [--count N] [--connections N] [--duration S] [--rounds N] [--keep]',
  );
  return {
    ...(values.alias !== undefined ? { alias: values.alias } : {}),
    count: numberOption('count', values.count),
    connections: numberOption('connections', values.connections),
    duration: numberOption('duration', values.duration, { integer: false }),
    rounds: numberOption('rounds', values.rounds),
    keep: values.keep,
  };
}

interface Target {
  name: string;
  url: string;
  requests: Array<{ method: 'GET' | 'POST'; path: string; body?: string }>;
}

interface Measured {
  name: string;
  p50: number;
  p99: number;
  rps: number;
  errors: number;
  /** CPU time per completed request: Elasticsearch's, and the gateway process's (gateway runs). */
  esCpuMs: number;
  gatewayCpuMs?: number;
}

/** Load-independent cost: CPU the processes spent, from ES node stats and /proc for the gateway. */
interface CpuProbe {
  esUrl: string;
  es(): Promise<number>;
  gateway(): number | undefined;
}

function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // utime and stime (fields 14, 15) in clock ticks of 10 ms; the name field may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function measure(target: Target, options: Options, cpu: CpuProbe, durationS = options.duration): Promise<Measured> {
  let next = 0;
  const [esBefore, gatewayBefore] = [await cpu.es(), cpu.gateway()];
  const result = await autocannon({
    url: target.url,
    connections: options.connections,
    duration: durationS,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => {
          const item = target.requests[next++ % target.requests.length]!;
          return { ...request, method: item.method, path: item.path, ...(item.body ? { body: item.body } : {}) };
        },
      },
    ],
  });
  const [esAfter, gatewayAfter] = [await cpu.es(), cpu.gateway()];
  const done = Math.max(result.requests.total, 1);
  const measured: Measured = {
    name: target.name,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    errors: result.errors + result.non2xx + result.timeouts,
    esCpuMs: (esAfter - esBefore) / done,
  };
  if (target.url !== cpu.esUrl && gatewayBefore !== undefined && gatewayAfter !== undefined) measured.gatewayCpuMs = (gatewayAfter - gatewayBefore) / done;
  return measured;
}

async function main(): Promise<void> {
  const options = readOptions();
  const stamp = Date.now().toString(36);
  const env: Record<string, string> = options.alias
    ? { LISTINGS_ALIAS: options.alias, LISTINGS_INDEX: `${options.alias}-unused`, REDIS_PREFIX: `bench-search:${stamp}:` }
    : { LISTINGS_ALIAS: `bench-search-${stamp}`, LISTINGS_INDEX: `bench-search-${stamp}-v1`, REDIS_PREFIX: `bench-search:${stamp}:` };
  env.CURSOR_SECRET = `bench-search-secret-${stamp}`;
  const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 60_000 });
  const redis = createRedisClient(config.redisUrl);
  let service: { child: ChildProcess; url: string } | undefined;
  try {
    if (!options.alias) await loadGeneratedListings(env, options.count);
    const { count } = await elasticsearch.count({ index: config.listingsAlias });
    process.stderr.write(`index ${config.listingsAlias}: ${count} listings\n`);

    service = await startServiceProcess(env);
    // The direct requests are built by the service's own query builder: the same bodies it sends.
    const child = service.child;
    const cpu: CpuProbe = {
      esUrl: config.elasticsearchUrl,
      es: async () => {
        const stats = await elasticsearch.nodes.stats({ metric: 'process' });
        return Object.values(stats.nodes).reduce((sum, node) => sum + (node.process?.cpu?.total_in_millis ?? 0), 0);
      },
      gateway: () => processCpuMs(child.pid),
    };
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), { elasticsearch, redis });
    await ranking.refresh();
    const direct = async (endpoint: ReadEndpoint, query: string) => {
      const request = parseReadRequest(endpoint, Object.fromEntries(new URLSearchParams(query)));
      const { body } = await search.buildRequest(request);
      const params = new URLSearchParams(Object.entries(searchParamsFor(request)).map(([k, v]) => [k, String(v)] as [string, string]));
      return { method: 'POST' as const, path: `/${config.listingsAlias}/_search?${params}`, body: JSON.stringify(body) };
    };
    const pairs: Array<[string, ReadEndpoint, string, string[]]> = [
      ['search rank', 'search', '/discovery/search', searchMix()],
      ['search explain=1', 'search', '/discovery/search', searchMix('&explain=1')],
      ['resources', 'resources', '/discovery/resources', resourcesMix()],
    ];
    const rows: Array<{ label: string; gateway: Measured; es: Measured }> = [];
    for (const [label, endpoint, path, mix] of pairs) {
      const esTarget: Target = { name: `${label} (direct ES)`, url: config.elasticsearchUrl, requests: await Promise.all(mix.map((q) => direct(endpoint, q))) };
      const gwTarget: Target = { name: `${label} (gateway)`, url: service.url, requests: mix.map((q) => ({ method: 'GET' as const, path: `${path}?${q}` })) };
      await measure(esTarget, options, cpu, 3); // warm caches for both sides
      await measure(gwTarget, options, cpu, 3);
      const esRuns: Measured[] = [];
      const gatewayRuns: Measured[] = [];
      for (let round = 0; round < options.rounds; round++) {
        esRuns.push(await measure(esTarget, options, cpu));
        gatewayRuns.push(await measure(gwTarget, options, cpu));
      }
      const es = median(esRuns);
      const gateway = median(gatewayRuns);
      rows.push({ label, gateway, es });
      process.stderr.write(`${label}: gateway p50 ${gateway.p50} ms, direct p50 ${es.p50} ms\n`);
    }
    printReport(rows, options, count);
  } finally {
    service?.child.kill('SIGTERM');
    if (!options.alias && !options.keep) {
      await dropDeploymentIndices(elasticsearch, config.listingsIndex);
    }
    await dropRedisPrefix(redis, config.redisPrefix);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

function median(runs: Measured[]): Measured {
  const mid = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return {
    name: runs[0]!.name,
    p50: mid(runs.map((r) => r.p50)),
    p99: mid(runs.map((r) => r.p99)),
    rps: mid(runs.map((r) => r.rps)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    esCpuMs: mid(runs.map((r) => r.esCpuMs)),
    ...(runs[0]!.gatewayCpuMs !== undefined ? { gatewayCpuMs: mid(runs.map((r) => r.gatewayCpuMs ?? 0)) } : {}),
  };
}

function printReport(rows: Array<{ label: string; gateway: Measured; es: Measured }>, options: Options, count: number): void {
  const lines = [
    `${count} listings, ${options.connections} connections, median of ${options.rounds} alternating ${options.duration} s runs per side`,
    '',
    '| workload | gateway p50 | gateway p99 | gateway req/s | direct ES p50 | direct ES p99 | direct ES req/s | p50 ratio | throughput ratio | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { label, gateway, es } of rows) {
    lines.push(
      `| ${label} | ${gateway.p50} ms | ${gateway.p99} ms | ${gateway.rps.toFixed(0)} | ${es.p50} ms | ${es.p99} ms | ${es.rps.toFixed(0)} | ` +
        `${(gateway.p50 / Math.max(es.p50, 0.001)).toFixed(2)}x | ${((100 * gateway.rps) / Math.max(es.rps, 1)).toFixed(0)}% | ${gateway.errors + es.errors} |`,
    );
  }
  lines.push('', 'CPU per request (ms): Elasticsearch when called directly / Elasticsearch behind the gateway / the gateway process', '');
  for (const { label, gateway, es } of rows) {
    lines.push(`- ${label}: ${es.esCpuMs.toFixed(2)} / ${gateway.esCpuMs.toFixed(2)} / ${(gateway.gatewayCpuMs ?? NaN).toFixed(2)}`);
  }
  const plain = rows.find((r) => r.label === 'search rank')?.gateway;
  const explain = rows.find((r) => r.label === 'search explain=1')?.gateway;
  if (plain && explain) lines.push('', `explain=1 p50 / plain p50 (gateway): ${(explain.p50 / Math.max(plain.p50, 0.001)).toFixed(2)}x`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain('bench-search', main);
