/**
 * Where the gateway's CPU per ranked search goes (docs/catalog-reads.md, "Gateway CPU, part by
 * part"): each stage of a read measured on its own, in this process, over the bench:search mix,
 * against an index that already exists (load one with `npm run bench -- search --alias A --count
 * 20000 --approximate-embeddings --keep`).
 *
 *   npm run bench -- gateway-parts --alias A [--ops 200] [--rounds 7]
 *
 * CPU is this process's (process.cpuUsage: every thread, V8's garbage collector included) per
 * operation. On a shared machine a busy neighbour inflates CPU time (caches, frequency, the
 * scheduler), never deflates it, so each stage reports the lowest of its rounds and their median.
 * The HTTP serving itself (Node's server, Express, middleware) is not in this process:
 * bench:search measures the whole gateway, and the difference is what serving costs.
 */
import http from 'node:http';
import { searchBodyJson, toListing } from '../../src/door.js';
import { loadConfig } from '../../src/door.js';
import { createLogger } from '../../src/door.js';
import { buildCatalogSearch } from '../../src/door.js';
import { parseReadRequest, type ReadRequest } from '../../src/door.js';
import { createElasticsearchClient, elasticsearchNodeUrls } from '../../src/door.js';
import type { ListingDocument } from '../../src/door.js';
import { createRedisClient, dropRedisPrefix } from '../../src/door.js';
import { storesFor } from '../../src/door.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { searchMix } from '../lib/searchQueryMix.js';

interface Stage {
  label: string;
  run: (i: number) => unknown;
}

/** A bare keep-alive HTTP POST with node:http: the floor any Elasticsearch client stands on. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function post(url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function cpuPerOp(stage: Stage, ops: number, rounds: number): Promise<{ min: number; median: number }> {
  for (let i = 0; i < 20; i++) await stage.run(i);
  const perOp: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < ops; i++) await stage.run(i);
    const used = process.cpuUsage(before);
    perOp.push((used.user + used.system) / ops);
  }
  perOp.sort((a, b) => a - b);
  return { min: perOp[0]!, median: perOp[Math.floor(perOp.length / 2)]! };
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    { options: { alias: { type: 'string' }, ops: { type: 'string', default: '200' }, rounds: { type: 'string', default: '7' } } },
    'usage: bench-gateway-parts --alias ALIAS [--ops N] [--rounds N]',
  );
  if (!values.alias) throw new Error('--alias is required: an index loaded by bench:search --keep');
  const alias = values.alias;
  const ops = numberOption('--ops', values.ops, { min: 10 });
  const rounds = numberOption('--rounds', values.rounds, { min: 1 });
  const stamp = Date.now().toString(36);
  // The engine's path: every read goes to Elasticsearch, as in bench:search.
  const config = loadConfig({ ...process.env, LISTINGS_ALIAS: alias, LISTINGS_INDEX: `${alias}-v1`, REDIS_PREFIX: `bench-gw-parts:${stamp}:`, READ_CACHE_MS: '0', LOG_LEVEL: 'warn' });
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const redis = createRedisClient(config.redisUrl);
  try {
    const { search, ranking } = buildCatalogSearch(config, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, config));
    await ranking.refresh();
    const queries = searchMix().map((q) => Object.fromEntries(new URLSearchParams(q)));
    const requests: ReadRequest[] = queries.map((q) => parseReadRequest('search', q));
    // Every query's body built once, with its vector (the model embeds each query once; later reads hit its cache).
    const built = await Promise.all(requests.map((r) => search.buildRequest(r)));
    const bodies = built.map((b) => b.body);
    const json = bodies.map((b) => JSON.stringify(b));
    const paths = built.map((b) => `/${alias}/_search?${new URLSearchParams(Object.entries(b.params).map(([k, v]) => [k, String(v)] as [string, string]))}`);
    const esUrl = elasticsearchNodeUrls(config.elasticsearchUrl)[0]!.replace(/\/$/, '');
    const answers = await Promise.all(json.map((body, i) => post(`${esUrl}${paths[i]}`, body)));
    const hits = answers.map((text) => ((JSON.parse(text) as { hits?: { hits?: Array<{ _source: ListingDocument }> } }).hits?.hits ?? []).slice(0, 20));
    const pages = hits.map((h) => ({ results: h.map((hit) => toListing(hit._source)) }));
    const at = <T>(list: T[], i: number): T => list[i % list.length]!;
    const stages: Stage[] = [
      { label: 'query string -> validated read request', run: (i) => parseReadRequest('search', at(queries, i)) },
      { label: 'read request -> plan (tunables, cursor, typo verdict and vector cached)', run: (i) => search.plan(at(requests, i)) },
      { label: 'read request -> plan -> Elasticsearch body', run: (i) => search.buildRequest(at(requests, i)) },
      { label: 'body -> JSON, plain JSON.stringify', run: (i) => JSON.stringify(at(bodies, i)) },
      { label: 'body -> JSON as the service sends it (searchBodyJson: each vector\'s JSON kept)', run: (i) => searchBodyJson(at(bodies, i)) },
      {
        label: 'one Elasticsearch round trip, raw (node:http + JSON.parse)',
        run: async (i) => JSON.parse(await post(`${esUrl}${at(paths, i)}`, at(json, i))),
      },
      {
        label: 'the same through @elastic/elasticsearch (client.search)',
        run: (i) => elasticsearch.search({ index: alias, ...at(bodies, i), ...at(built, i).params } as never, { openTelemetry: { enabled: false } }),
      },
      { label: 'hits -> listings (response shape)', run: (i) => at(hits, i).map((hit) => toListing(hit._source)) },
      { label: 'page -> JSON', run: (i) => JSON.stringify(at(pages, i)) },
      { label: 'the whole read (CatalogSearch.read + JSON)', run: async (i) => JSON.stringify(await search.read(at(requests, i))) },
    ];
    process.stdout.write(`\nGateway CPU per ranked search, part by part: index ${alias}, the bench:search mix (${queries.length} queries), ${rounds} rounds of ${ops} operations; microseconds of this process's CPU (all threads) per operation\n\n`);
    process.stdout.write('| stage | lowest round | median round |\n|---|---|---|\n');
    for (const stage of stages) {
      const { min, median } = await cpuPerOp(stage, ops, rounds);
      process.stdout.write(`| ${stage.label} | ${min.toFixed(0)} us | ${median.toFixed(0)} us |\n`);
    }
  } finally {
    agent.destroy();
    // The read service keeps its cursor key under this run's prefix: nothing of the run stays behind.
    await dropRedisPrefix(redis, config.redisPrefix).catch(() => undefined);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-gateway-parts', main);
