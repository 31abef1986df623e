/**
 * Search benchmark (docs/catalog-reads.md, "Cost"): the service's read endpoints against the very
 * same Elasticsearch queries sent straight to Elasticsearch, at the same concurrency, in one run,
 * with a fixed reference query (lab/lib/referenceQuery.ts) measured in the same rounds on the
 * same index: every workload's Elasticsearch CPU per request is reported absolute and as a
 * multiple of the reference's, so a ratio cannot hide growth of its own baseline.
 *
 *   npx tsx lab/bench/search.ts                        load 100,000 generated listings into a
 *                                                          scratch index, measure, delete it
 *   npx tsx lab/bench/search.ts --alias listings-bench reuse an index (loaded into it first when
 *                                                          the alias does not exist yet; kept)
 *   options: --count N (default 100000) --connections N (16) --duration S (10 per round)
 *            --rounds N (3) --keep --force-merge N (segments, before measuring)
 *            --skewed N   also measure the read cache: a second gateway with it on (as shipped) serves
 *                         a Zipf-skewed mix of N distinct queries; reports its hit ratio and the CPU
 *                         per request next to the same mix with the cache off
 *            --approximate-embeddings  load without the model, then give every listing an
 *                                      approximate embedding (lab/lib/benchVectors.ts):
 *                                      minutes instead of a quarter of an hour for 100k
 *            --split-cores  Elasticsearch on half the cores, the gateway and the load generator
 *                           on the other half, as gateways on hosts of their own
 *                           (lab/lib/cpuSplit.ts)
 *            --live  the live shape: the catalog is written while it is searched (signal flushes
 *                    and listing updates through the write path, lab/lib/liveWriter.ts), default
 *                    merge policy, no force-merge; reports the segment count and the write rate,
 *                    and the repeats of paging every search to its end while writing
 *            --signal-rate N, --update-rate N  the live writes per second (default 30 and 2 per
 *                    100,000 listings: settlements, health checks and re-probes)
 *            --warm-up S  seconds of writes before the live rounds (default 30)
 *            --one-segment  then the same rounds on a copy of the index merged into one segment
 *                    (a clone, so the live index keeps its shape): the second column
 *            --service-root DIR  the gateway is DIR's service (another checkout, e.g. the code before a
 *                    change, which lacks --live): "behind the gateway" and "gateway process" are its
 *                    figures; the direct rows stay this checkout's query bodies
 *            --tasks      also the task set's tuning texts through the gateway (issue 45: one search
 *                         per need, the whole query, the paid-outcome look-up), beside the reference
 *                         query of the same texts; --outcomes N writes N paid-outcome links first
 *            --distinct N also N search texts through the gateway, beside the reference query of
 *                         the same texts; its warm-up and rounds go on through them, so with N above
 *                         the row's requests in the run (rps x seconds) no text repeats and no cache
 *                         of the gateway helps
 *
 * Measurements start only once the index has no merge running (lab/lib/indexSettle.ts): a
 * freshly loaded index measures its merges too. CPU per request is Elasticsearch's whole-node CPU
 * (node stats) and the gateway process's (/proc): point ELASTICSEARCH_URL at a node nothing else
 * uses. The machine is shared, so load drifts during a run: the workloads alternate for several
 * rounds and each figure is the median. Only targets 127.0.0.1. The service runs as a child
 * process (node + tsx) so the load generator and the gateway do not share one event loop.
 */
import type { ChildProcess } from 'node:child_process';
import { loadConfig } from '../../src/door.js';
import { createLogger } from '../../src/door.js';
import { buildCatalogSearch } from '../../src/door.js';
import { type ReadRequest } from '../../src/door.js';
import { createElasticsearchClient, elasticsearchNodeUrls } from '../../src/door.js';
import { createRedisClient } from '../../src/door.js';
import { dropDeploymentIndices } from '../../src/door.js';
import { dropRedisPrefix } from '../../src/door.js';
import { storesFor } from '../../src/door.js';
import { loadGeneratedListings } from '../lib/benchCatalog.js';
import { addApproximateEmbeddings } from '../lib/benchVectors.js';
import { sharedEmbedder, QueryEmbeddings } from '../../src/door.js';
import { loadTaskSet, taskHistoryAsOf } from '../lib/judgedSet.js';
import { elasticsearchCpuMs, measure, median, processCpuMs, type CpuProbe, type Measured, type Target } from '../lib/httpLoad.js';
import { startServiceProcess } from '../lib/benchService.js';
import { splitCores, type CoreSplit } from '../lib/cpuSplit.js';
import { printLiveShape, printReport } from '../lib/searchBenchReport.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { describeSettled, settleIndex } from '../lib/indexSettle.js';
import { referenceSearchBody } from '../lib/referenceQuery.js';
import { distinctSearchQueries, searchMix, zipfSequence } from '../lib/searchQueryMix.js';
import { defaultRates, describeSegments, oneSegmentCopy, pagingRepeats, sampleSegments, startLiveWriter, type LiveRates } from '../lib/liveShape.js';
import { prepareWorkloads, runRounds, workloadsOn } from '../lib/searchWorkloads.js';

interface Options {
  alias?: string;
  count: number;
  connections: number;
  duration: number;
  rounds: number;
  keep: boolean;
  forceMerge?: number;
  skewed: number;
  approximateEmbeddings: boolean;
  splitCores: boolean;
  live: boolean;
  signalRate?: number;
  updateRate?: number;
  warmUp: number;
  oneSegment: boolean;
  /** Also the task set's tuning texts through the gateway (issue 45), and this many paid-outcome links loaded first. */
  tasks: boolean;
  outcomes: number;
  /** Also this many search texts that never repeat, through the gateway (every one a kNN search, embedded afresh). */
  distinct: number;
  /** Another checkout whose service is the gateway (the before code of a change, which lacks this harness's modes); the direct bodies stay this checkout's. */
  serviceRoot?: string;
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
        'force-merge': { type: 'string' },
        skewed: { type: 'string', default: '0' },
        'approximate-embeddings': { type: 'boolean', default: false },
        'split-cores': { type: 'boolean', default: false },
        live: { type: 'boolean', default: false },
        'signal-rate': { type: 'string' },
        'update-rate': { type: 'string' },
        'warm-up': { type: 'string', default: '30' },
        'one-segment': { type: 'boolean', default: false },
        tasks: { type: 'boolean', default: false },
        outcomes: { type: 'string', default: '0' },
        'service-root': { type: 'string' },
        distinct: { type: 'string', default: '0' },
      },
    },
    'usage: bench-search [--alias ALIAS] [--count N] [--connections N] [--duration S] [--rounds N] [--keep] [--force-merge N] [--skewed N] [--approximate-embeddings] [--split-cores] [--live [--signal-rate N] [--update-rate N] [--warm-up S]] [--one-segment] [--tasks [--outcomes N]] [--distinct N] [--service-root DIR]',
  );
  return {
    ...(values.alias !== undefined ? { alias: values.alias } : {}),
    count: numberOption('count', values.count),
    connections: numberOption('connections', values.connections),
    duration: numberOption('duration', values.duration, { integer: false }),
    rounds: numberOption('rounds', values.rounds),
    keep: values.keep,
    ...(values['force-merge'] !== undefined ? { forceMerge: numberOption('force-merge', values['force-merge']) } : {}),
    skewed: numberOption('skewed', values.skewed, { min: 0, max: 10_000 }),
    approximateEmbeddings: values['approximate-embeddings'],
    splitCores: values['split-cores'],
    live: values.live,
    ...(values['signal-rate'] !== undefined ? { signalRate: numberOption('signal-rate', values['signal-rate'], { min: 0 }) } : {}),
    ...(values['update-rate'] !== undefined ? { updateRate: numberOption('update-rate', values['update-rate'], { min: 0 }) } : {}),
    warmUp: numberOption('warm-up', values['warm-up'], { min: 0 }),
    oneSegment: values['one-segment'],
    ...(values['service-root'] !== undefined ? { serviceRoot: values['service-root'] } : {}),
    tasks: values.tasks,
    outcomes: numberOption('outcomes', values.outcomes, { min: 0, max: 100_000 }),
    distinct: numberOption('distinct', values.distinct, { min: 0, max: 100_000 }),
  };
}

/** Pages per search when counting repeats: the shipped rank window (300) and into its tail at 20 a page. */
const PAGES = 18;

async function main(): Promise<void> {
  const options = readOptions();
  const stamp = Date.now().toString(36);
  const alias = options.alias ?? `bench-search-${stamp}`;
  const env: Record<string, string> = {
    LISTINGS_ALIAS: alias,
    LISTINGS_INDEX: `${alias}-v1`,
    REDIS_PREFIX: `bench-search:${stamp}:`,
    CURSOR_SECRET: `bench-search-secret-${stamp}`,
    // The engine's cost per search: every request goes to Elasticsearch (--skewed measures the read cache).
    READ_CACHE_MS: '0',
  };
  const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl, { requestTimeoutMs: 300_000 });
  const redis = createRedisClient(config.redisUrl);
  const scratch = options.alias === undefined && !options.keep;
  const services: Array<{ child: ChildProcess; url: string }> = [];
  let split: CoreSplit | undefined;
  let stopWriter: (() => Promise<unknown>) | undefined;
  let dropCopy: (() => Promise<void>) | undefined;
  try {
    if (!(await elasticsearch.indices.existsAlias({ name: alias }))) await load(options, env, elasticsearch, alias);
    else if (options.approximateEmbeddings) await embed(options, env, elasticsearch, alias); // finishes an interrupted load
    const settled = await settleIndex(elasticsearch, alias, options.forceMerge !== undefined ? { maxSegments: options.forceMerge } : {});
    const { count } = await elasticsearch.count({ index: alias });
    process.stderr.write(`${describeSettled(alias, settled)}; ${count} listings\n`);

    // Before the gateway starts: it inherits this process's cores.
    if (options.splitCores) split = await splitCores(elasticsearch);
    const service = await startServiceProcess(env, [], options.serviceRoot);
    services.push(service);
    // Direct requests go to the first node (a cluster routes them on from there).
    const esUrl = elasticsearchNodeUrls(config.elasticsearchUrl)[0]!;
    const probe = (child: ChildProcess): CpuProbe => ({ esUrl, es: () => elasticsearchCpuMs(elasticsearch), gateway: () => processCpuMs(child.pid) });
    // The direct requests are built by the service's own planner and query builder: the same bodies it sends.
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
    await ranking.refresh();
    if (options.outcomes > 0) process.stderr.write(`${await loadOutcomeLinks(config, elasticsearch, redis, alias, options.outcomes)} paid-outcome links written\n`);
    // Task queries (issue 45) are several searches each (one per need, then the whole query) and a
    // look-up of paid outcomes: measured against the reference query of the same texts.
    const gatewayMixes = [
      ...(options.tasks ? [{ label: 'search rank, task queries', queries: loadTaskSet('tuning').queries.map((query) => `q=${encodeURIComponent(query.q)}`) }] : []),
      // Texts that do not repeat (the rounds go on through them): no query-embedding or typo-verdict cache hit.
      ...(options.distinct > 0 ? [{ label: `search rank, ${options.distinct} distinct queries`, queries: distinctSearchQueries(options.distinct) }] : []),
    ];
    const rates: LiveRates | undefined = options.live ? { ...defaultRates(count), ...(options.signalRate !== undefined ? { signals: options.signalRate } : {}), ...(options.updateRate !== undefined ? { updates: options.updateRate } : {}) } : undefined;
    if (rates) {
      const writer = await startLiveWriter(env, count, rates);
      stopWriter = () => writer.stop();
      process.stderr.write(`live writes: ${rates.signals} signal updates and ${rates.updates} listing updates a second; ${options.warmUp} s before measuring\n`);
      await new Promise((resolve) => setTimeout(resolve, options.warmUp * 1000));
      const prepared = await prepareWorkloads(search, gatewayMixes);
      const referencePages = await countReferencePages(elasticsearch, alias, prepared.searches);
      // What the writes alone cost Elasticsearch, and the idle gateway its background work, a second:
      // a workload's requests each carry 1/rps of it, so it is subtracted for the net figures.
      const quiet = await quietCpu(elasticsearch, service.child, 10);
      const sampler = sampleSegments(elasticsearch, alias);
      const rows = await runRounds(workloadsOn(prepared, alias, esUrl, service.url), options, probe(service.child));
      const segments = await sampler.stop();
      const repeats = await pagingRepeats(service.url, searchMix(), PAGES);
      stopWriter = undefined;
      const written = await writer.stop();
      const shape = `live shape: ${describeSegments(segments)}; default merge policy, no force-merge`;
      printReport(rows, { ...options, referencePages, ...(split ? { split: split.description } : {}) }, count, shape);
      let oneSegment: Parameters<typeof printLiveShape>[0]['oneSegment'];
      if (options.oneSegment) {
        const copy = await oneSegmentCopy(elasticsearch, alias);
        dropCopy = copy.drop;
        const second = await startServiceProcess({ ...env, LISTINGS_ALIAS: copy.alias, LISTINGS_INDEX: copy.index }, [], options.serviceRoot);
        services.push(second);
        const copyRows = await runRounds(workloadsOn(prepared, copy.alias, esUrl, second.url), options, probe(second.child));
        oneSegment = { rows: copyRows, repeats: await pagingRepeats(second.url, searchMix(), PAGES) };
      }
      printLiveShape({ rows, written, rates, segments, repeats, quiet, ...(oneSegment ? { oneSegment } : {}) });
    } else {
      const prepared = await prepareWorkloads(search, gatewayMixes);
      const referencePages = await countReferencePages(elasticsearch, alias, prepared.searches);
      const rows = await runRounds(workloadsOn(prepared, alias, esUrl, service.url), options, probe(service.child));
      printReport(rows, { ...options, referencePages, ...(split ? { split: split.description } : {}) }, count, describeSettled(alias, settled));
    }
    if (options.skewed > 0) {
      const cached = await startServiceProcess({ ...env, READ_CACHE_MS: '1000' }, [], options.serviceRoot);
      services.push(cached);
      await measureReadCache(options, service, cached, esUrl, elasticsearch);
    }
  } finally {
    split?.restore();
    await stopWriter?.().catch(() => undefined);
    for (const service of services) service.child.kill('SIGTERM');
    await dropCopy?.();
    if (scratch) await dropDeploymentIndices(elasticsearch, config.listingsIndex);
    await dropRedisPrefix(redis, config.redisPrefix);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

/** Elasticsearch's and the gateway's CPU a second over `seconds` without a request (the writes go on). */
async function quietCpu(elasticsearch: ReturnType<typeof createElasticsearchClient>, gateway: ChildProcess, seconds: number): Promise<{ esMsPerS: number; gatewayMsPerS: number }> {
  const [es, gw] = [await elasticsearchCpuMs(elasticsearch), processCpuMs(gateway.pid) ?? 0];
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return { esMsPerS: ((await elasticsearchCpuMs(elasticsearch)) - es) / seconds, gatewayMsPerS: ((processCpuMs(gateway.pid) ?? 0) - gw) / seconds };
}

/**
 * How many of the mix's queries the reference query fills a page for, and how many it finds
 * nothing for: a query the reference finds nothing for costs it no scoring and no fetch, while
 * the ranked search returns the listings it finds by their keywords, routes and meaning, so those
 * queries weigh on the multiple of the reference (docs/catalog-reads.md).
 */
async function countReferencePages(elasticsearch: ReturnType<typeof createElasticsearchClient>, alias: string, requests: ReadRequest[]): Promise<string> {
  let [full, empty] = [0, 0];
  for (const request of requests) {
    const body = referenceSearchBody(request);
    const response = await elasticsearch.search({ index: alias, ...body, filter_path: 'hits.hits._id' } as never);
    const hits = (response as { hits?: { hits?: unknown[] } }).hits?.hits?.length ?? 0;
    if (hits === body.size) full += 1;
    if (hits === 0) empty += 1;
  }
  return `the reference query fills the page for ${full} of the mix's ${requests.length} queries and finds nothing for ${empty}`;
}

/** Generated listings through the write path, then (optionally) approximate embeddings. */
async function load(options: Options, env: Record<string, string>, elasticsearch: ReturnType<typeof createElasticsearchClient>, alias: string): Promise<void> {
  await loadGeneratedListings(options.approximateEmbeddings ? { ...env, EMBEDDING_MODEL_DIR: '/nonexistent' } : env, options.count);
  if (options.approximateEmbeddings) await embed(options, env, elasticsearch, alias);
}

async function embed(options: Options, env: Record<string, string>, elasticsearch: ReturnType<typeof createElasticsearchClient>, alias: string): Promise<void> {
  const config = loadConfig({ ...process.env, ...env });
  const texts = await addApproximateEmbeddings(elasticsearch, alias, sharedEmbedder(config, createLogger('warn')), (done) =>
    process.stderr.write(`\rapproximate embeddings: ${done}/${options.count}`),
  );
  process.stderr.write(`\n${texts} distinct texts embedded\n`);
}

/**
 * The read cache on a skewed mix (what many agents asking a few popular things send): the same
 * request sequence, Zipf-distributed (s = 1) over `--skewed` distinct queries, against a gateway
 * without the cache and one with it on, alternating; its hit ratio is read from /metrics.
 */
async function measureReadCache(
  options: Options,
  plain: { url: string; child: ChildProcess },
  cached: { url: string; child: ChildProcess },
  esUrl: string,
  elasticsearch: ReturnType<typeof createElasticsearchClient>,
): Promise<void> {
  const queries = distinctSearchQueries(options.skewed);
  const sequence = zipfSequence(queries.length, 20_000).map((i) => ({ method: 'GET' as const, path: `/discovery/search?${queries[i]}` }));
  const probe = (child: ChildProcess): CpuProbe => ({ esUrl, es: () => elasticsearchCpuMs(elasticsearch), gateway: () => processCpuMs(child.pid) });
  const off: Target = { name: 'skewed mix, read cache off', url: plain.url, requests: sequence };
  const on: Target = { name: 'skewed mix, read cache on', url: cached.url, requests: sequence };
  const counts = async () => {
    const text = await (await fetch(`${cached.url}/metrics`)).text();
    const value = (outcome: string) => Number(new RegExp(`^catalog_read_cache_total\\{outcome="${outcome}"\\} (\\S+)`, 'm').exec(text)?.[1] ?? 0);
    return { hit: value('hit') + value('joined'), all: value('hit') + value('joined') + value('miss') };
  };
  await measure(on, options, probe(cached.child), 3);
  await measure(off, options, probe(plain.child), 3);
  const runs = { on: [] as Measured[], off: [] as Measured[] };
  const before = await counts();
  for (let round = 0; round < options.rounds; round++) {
    runs.on.push(await measure(on, options, probe(cached.child)));
    runs.off.push(await measure(off, options, probe(plain.child)));
  }
  const after = await counts();
  const [a, b] = [median(runs.on), median(runs.off)];
  const ratio = (after.hit - before.hit) / Math.max(1, after.all - before.all);
  process.stdout.write(
    `\nread cache, ${options.skewed} distinct queries, Zipf (s = 1) sequence of 20,000, through the gateway; hit ratio ${(100 * ratio).toFixed(1)}%\n\n` +
      '| read cache | p50 | req/s | ES CPU ms/request | gateway CPU ms/request |\n|---|---|---|---|---|\n' +
      `| on (1 s) | ${a.p50} ms | ${a.rps.toFixed(0)} | ${a.esCpuMs.toFixed(2)} | ${(a.gatewayCpuMs ?? NaN).toFixed(2)} |\n` +
      `| off | ${b.p50} ms | ${b.rps.toFixed(0)} | ${b.esCpuMs.toFixed(2)} | ${(b.gatewayCpuMs ?? NaN).toFixed(2)} |\n`,
  );
}

runMain('bench-search', main);

/**
 * `--outcomes N`: N paid-outcome links on the bench catalog (src/outcomes), each a history text of
 * the task set embedded by the service's model, linked to a listing of the catalog by a payer of
 * 90, so the task workload's outcome look-up searches a real index of links.
 */
async function loadOutcomeLinks(config: ReturnType<typeof loadConfig>, elasticsearch: ReturnType<typeof createElasticsearchClient>, redis: ReturnType<typeof createRedisClient>, alias: string, count: number): Promise<number> {
  const links = storesFor({ elasticsearch, redis }, config).elasticsearch.outcomeLinks();
  const embeddings = new QueryEmbeddings(sharedEmbedder(config, createLogger('warn')));
  const history = taskHistoryAsOf(loadTaskSet('tuning'), new Date());
  const ids = ((await elasticsearch.search({ index: alias, size: 1000, _source: ['id'] } as never)) as { hits: { hits: Array<{ _source: { id: string } }> } }).hits.hits.map((h) => h._source.id);
  const batch = [];
  for (let i = 0; i < count; i++) {
    const outcome = history[i % history.length]!;
    const vector = (await embeddings.vectorFor(outcome.q))!;
    batch.push({ q: outcome.q, vector: vector.values, model: vector.model, listingId: ids[(i * 7919) % ids.length]!, payer: `0x${(i % 90).toString(16).padStart(40, '0')}`, payTo: `0x${'f'.repeat(40)}`, at: outcome.at, source: 'import' as const });
  }
  for (let i = 0; i < batch.length; i += 500) await links.write(batch.slice(i, i + 500));
  await links.refresh();
  return batch.length;
}
