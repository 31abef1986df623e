/**
 * Search benchmark (docs/catalog-reads.md): the service's read endpoints against the very same
 * Elasticsearch queries sent straight to Elasticsearch, at the same concurrency, in one run.
 *
 *   npx tsx scripts/bench-search.ts                        load 100,000 generated listings into a
 *                                                          scratch index, measure, delete it
 *   npx tsx scripts/bench-search.ts --alias listings-bench reuse an index (e.g. bench-ingest --keep)
 *   options: --count N (default 100000) --connections N (16) --duration S (10 per round)
 *            --rounds N (3) --keep
 *            --approximate-embeddings  load without the model, then give every listing an
 *                                      approximate embedding (scripts/lib/benchVectors.ts):
 *                                      minutes instead of a quarter of an hour for 100k
 *            --ranking-cost-only       only the "ranking cost" table (full ranking vs BM25 alone)
 *
 * The machine is shared, so load drifts during a run: each workload alternates direct and gateway
 * runs for several rounds and reports the median of each figure.
 * Only targets 127.0.0.1. The service runs as a child process (node + tsx) so the load generator
 * and the gateway do not share one event loop.
 */
import type { ChildProcess } from 'node:child_process';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { buildCatalogSearch } from '../src/search/index.js';
import { buildSearchBody, searchParamsFor } from '../src/search/queryBuilder.js';
import { parseReadRequest, type ReadEndpoint } from '../src/search/readRequest.js';
import { createElasticsearchClient, elasticsearchNodeUrls } from '../src/store/elasticsearch/client.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { dropDeploymentIndices } from '../src/store/elasticsearch/listingIndex.js';
import { dropRedisPrefix } from '../src/store/redis/client.js';
import { loadGeneratedListings } from './lib/benchCatalog.js';
import { addApproximateEmbeddings } from './lib/benchVectors.js';
import { sharedEmbedder } from '../src/semantic/textEmbedder.js';
import { elasticsearchCpuMs, measure, median, processCpuMs, type CpuProbe, type Measured, type Target } from './lib/httpLoad.js';
import { startServiceProcess } from './lib/benchService.js';
import { bm25Alone } from './lib/bm25Alone.js';
import { numberOption, parseCommandLine, runMain } from './lib/cliOptions.js';
import { resourcesMix, searchMix } from './lib/searchQueryMix.js';
import { storesFor } from '../src/store/stores.js';

interface Options {
  alias?: string;
  count: number;
  connections: number;
  duration: number;
  rounds: number;
  keep: boolean;
  approximateEmbeddings: boolean;
  rankingCostOnly: boolean;
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
        'approximate-embeddings': { type: 'boolean', default: false },
        'ranking-cost-only': { type: 'boolean', default: false },
      },
    },
    'usage: bench-search [--alias ALIAS] [--count N] [--connections N] [--duration S] [--rounds N] [--keep] [--approximate-embeddings] [--ranking-cost-only]',
  );
  return {
    ...(values.alias !== undefined ? { alias: values.alias } : {}),
    count: numberOption('count', values.count),
    connections: numberOption('connections', values.connections),
    duration: numberOption('duration', values.duration, { integer: false }),
    rounds: numberOption('rounds', values.rounds),
    keep: values.keep,
    approximateEmbeddings: values['approximate-embeddings'],
    rankingCostOnly: values['ranking-cost-only'],
  };
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
    if (!options.alias) {
      await loadGeneratedListings(options.approximateEmbeddings ? { ...env, EMBEDDING_MODEL_DIR: '/nonexistent' } : env, options.count);
      if (options.approximateEmbeddings) {
        const texts = await addApproximateEmbeddings(elasticsearch, config.listingsAlias, sharedEmbedder(config, createLogger('warn')), (done) =>
          process.stderr.write(`\rapproximate embeddings: ${done}/${options.count}`),
        );
        process.stderr.write(`\n${texts} distinct texts embedded\n`);
      }
    }
    const { count } = await elasticsearch.count({ index: config.listingsAlias });
    process.stderr.write(`index ${config.listingsAlias}: ${count} listings\n`);

    service = await startServiceProcess(env);
    // Direct requests go to the first node (a cluster routes them on from there).
    const esUrl = elasticsearchNodeUrls(config.elasticsearchUrl)[0]!;
    // The direct requests are built by the service's own query builder: the same bodies it sends.
    const child = service.child;
    const cpu: CpuProbe = {
      esUrl,
      es: () => elasticsearchCpuMs(elasticsearch),
      gateway: () => processCpuMs(child.pid),
    };
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
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
    // --ranking-cost-only: the ranking-cost table alone (experiments on a kept index).
    for (const [label, endpoint, path, mix] of options.rankingCostOnly ? [] : pairs) {
      const esTarget: Target = { name: `${label} (direct ES)`, url: esUrl, requests: await Promise.all(mix.map((q) => direct(endpoint, q))) };
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
    const cost = await rankingCost(options, cpu, esUrl, direct, async (query) => {
      const request = parseReadRequest('search', Object.fromEntries(new URLSearchParams(query)));
      const body = buildSearchBody(request, bm25Alone(await ranking.current()), { now: Date.now() });
      const params = new URLSearchParams(Object.entries(searchParamsFor(request)).map(([k, v]) => [k, String(v)] as [string, string]));
      return { method: 'POST' as const, path: `/${config.listingsAlias}/_search?${params}`, body: JSON.stringify(body) };
    });
    if (rows.length > 0) printReport(rows, options, count);
    printRankingCost(cost);
  } finally {
    service?.child.kill('SIGTERM');
    if (!options.alias && !options.keep) {
      await dropDeploymentIndices(elasticsearch, config.listingsIndex);
    }
    await dropRedisPrefix(redis, config.redisPrefix);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
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

type DirectRequest = { method: 'POST'; path: string; body: string };

/** What the full ranking costs Elasticsearch over BM25 alone: both sent directly, alternating rounds. */
async function rankingCost(
  options: Options,
  cpu: CpuProbe,
  esUrl: string,
  full: (endpoint: ReadEndpoint, query: string) => Promise<DirectRequest>,
  bm25: (query: string) => Promise<DirectRequest>,
): Promise<{ full: Measured; bm25: Measured }> {
  const fullTarget: Target = { name: 'search full ranking (direct ES)', url: esUrl, requests: await Promise.all(searchMix().map((q) => full('search', q))) };
  const bm25Target: Target = { name: 'search BM25 alone (direct ES)', url: esUrl, requests: await Promise.all(searchMix().map(bm25)) };
  await measure(fullTarget, options, cpu, 3);
  await measure(bm25Target, options, cpu, 3);
  const fullRuns: Measured[] = [];
  const bm25Runs: Measured[] = [];
  for (let round = 0; round < options.rounds; round++) {
    fullRuns.push(await measure(fullTarget, options, cpu));
    bm25Runs.push(await measure(bm25Target, options, cpu));
  }
  return { full: median(fullRuns), bm25: median(bm25Runs) };
}

function printRankingCost({ full, bm25 }: { full: Measured; bm25: Measured }): void {
  process.stdout.write(
    `\nranking cost, direct ES (issue 10 target: full p50 at most 1.3x BM25 alone)\n\n| query | p50 | p99 | req/s | ES CPU ms/request |\n|---|---|---|---|---|\n` +
      `| BM25 alone | ${bm25.p50} ms | ${bm25.p99} ms | ${bm25.rps.toFixed(0)} | ${bm25.esCpuMs.toFixed(2)} |\n` +
      `| full ranking | ${full.p50} ms | ${full.p99} ms | ${full.rps.toFixed(0)} | ${full.esCpuMs.toFixed(2)} |\n` +
      `\nfull / BM25 alone p50: ${(full.p50 / Math.max(bm25.p50, 0.001)).toFixed(2)}x\n`,
  );
}

runMain('bench-search', main);
