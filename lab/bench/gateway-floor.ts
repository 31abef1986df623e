/**
 * What any Node gateway pays to relay these reads (issue 46 item 3): the service beside two bare
 * relays (lab/lib/relayServer.ts) that send Elasticsearch the service's very request bodies for the
 * bench:search mixes and answer with what comes back, `pass` (the bytes unchanged), `reshape`
 * (parsed, the hits' sources written as a page) and `express` (the same in a bare Express app). Each in a process of its own, measured in
 * alternating rounds (the order turns every round) on a kept catalog, read cache off: the process's
 * CPU per request (/proc, with its kernel part), Elasticsearch's CPU behind it, requests per second
 * and p50. The service's figure less `reshape`'s is what its own layers cost (Express, validation,
 * planning, cursors, listings, metrics); `reshape` is the floor those layers stand on.
 *
 *   npm run bench -- gateway-floor --alias ALIAS [--workloads search,resources] [--rounds 4] [--duration 6] [--connections 16] [--canned]
 *
 * `--canned`: every process's searches answered from memory (lab/lib/cannedSearches.ts, as
 * gateway-pair --canned), so Elasticsearch's CPU does not compete with theirs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCatalogSearch, createElasticsearchClient, createLogger, createRedisClient, dropRedisPrefix, elasticsearchNodeUrls, fail, loadConfig, loadConfigOrFail, numberOption, parseCommandLine, runMain, storesFor } from '../../src/door.js';
import { freePort, startServiceProcess, untilListening } from '../lib/benchService.js';
import { directSearchRequest, elasticsearchCpuMs, measure, middle, processCpuMs, processCpuSplitMs, type Measured, type Target } from '../lib/httpLoad.js';
import { prepareWorkloads } from '../lib/searchWorkloads.js';
import { startCannedSearches, type CannedSearches } from '../lib/cannedSearches.js';

const USAGE = 'usage: bench-gateway-floor --alias ALIAS [--workloads search,resources] [--rounds N] [--duration S] [--connections N] [--canned]';
/** bench:search's workload labels (lab/lib/searchWorkloads.ts) by the names this tool takes. */
const LABELS: Record<string, string> = { search: 'search rank', resources: 'resources', explain: 'search explain=1' };

interface Contender {
  name: string;
  child: ChildProcess;
  target: Target;
}

async function startRelay(file: string, mode: 'pass' | 'reshape' | 'express', esUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const entry = fileURLToPath(new URL('../lib/relayServer.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', entry, file, mode, esUrl], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  await untilListening(child, 'relay', 30_000);
  return { child, url: `http://127.0.0.1:${port}` };
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        alias: { type: 'string' },
        workloads: { type: 'string', default: 'search,resources' },
        rounds: { type: 'string', default: '4' },
        duration: { type: 'string', default: '6' },
        connections: { type: 'string', default: '16' },
        canned: { type: 'boolean', default: false },
      },
    },
    USAGE,
  );
  if (!values.alias) fail(USAGE);
  const alias = values.alias;
  const workloads = values.workloads.split(',').map((w) => w.trim());
  for (const w of workloads) if (!LABELS[w]) fail(`unknown workload ${w}: ${Object.keys(LABELS).join(', ')}`);
  const rounds = numberOption('rounds', values.rounds, { min: 1 });
  const options = { connections: numberOption('connections', values.connections), duration: numberOption('duration', values.duration, { integer: false }) };
  const config = loadConfigOrFail();
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const redis = createRedisClient(config.redisUrl);
  const stamp = Date.now().toString(36);
  const prefix = `bench-gateway-floor:${stamp}:`;
  const dir = mkdtempSync(join(tmpdir(), 'gateway-floor-'));
  const children: ChildProcess[] = [];
  let canned: CannedSearches | undefined;
  try {
    if (!(await elasticsearch.indices.existsAlias({ name: alias }))) fail(`no alias ${alias}: keep a catalog first (npm run bench -- search --alias ${alias} --keep)`);
    const index = Object.keys(await elasticsearch.indices.getAlias({ name: alias }))[0]!;
    const env: Record<string, string> = { LISTINGS_ALIAS: alias, LISTINGS_INDEX: index, REDIS_PREFIX: prefix, CURSOR_SECRET: `bench-gateway-floor-${stamp}`, READ_CACHE_MS: '0' };
    // The bodies the service itself sends, built by its planner in this process.
    const planning = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'warn' });
    const { search, ranking } = buildCatalogSearch(planning, createLogger('error', { silent: true }), storesFor({ elasticsearch, redis }, planning));
    await ranking.refresh();
    const prepared = await prepareWorkloads(search);
    const esUrl = elasticsearchNodeUrls(config.elasticsearchUrl)[0]!;
    if (values.canned) canned = await startCannedSearches(esUrl);
    const upstream = canned?.url ?? esUrl;
    const service = await startServiceProcess({ ...env, ...(canned ? { ELASTICSEARCH_URL: canned.url } : {}) });
    children.push(service.child);
    const contenders = new Map<string, Contender[]>();
    for (const w of workloads) {
      const workload = prepared.workloads.find((p) => p.label === LABELS[w])!;
      const file = join(dir, `${w}.json`);
      writeFileSync(file, JSON.stringify(workload.direct.map(({ params, body }) => directSearchRequest(alias, params, body))));
      const list: Contender[] = [];
      for (const mode of ['pass', 'reshape', 'express'] as const) {
        const relay = await startRelay(file, mode, upstream);
        children.push(relay.child);
        list.push({ name: `relay, ${mode}`, child: relay.child, target: { name: `${w} relay ${mode}`, url: relay.url, requests: workload.direct.map((_, i) => ({ method: 'GET' as const, path: `/${i}` })) } });
      }
      list.push({ name: 'the service', child: service.child, target: { name: `${w} service`, url: service.url, requests: workload.gatewayPaths!.map((path) => ({ method: 'GET' as const, path })) } });
      contenders.set(w, list);
    }
    const probe = (c: Contender) => ({ esUrl, es: () => elasticsearchCpuMs(elasticsearch), gateway: () => processCpuMs(c.child.pid), gatewaySystem: () => processCpuSplitMs(c.child.pid)?.system });
    for (const list of contenders.values()) for (const c of list) await measure(c.target, options, probe(c), 3); // JIT, embeddings of the mix
    const runs = new Map<string, Measured[]>();
    for (let round = 0; round < rounds; round++) {
      for (const list of contenders.values()) {
        const order = list.map((_, i) => list[(i + round) % list.length]!);
        for (const c of order) runs.set(c.target.name, [...(runs.get(c.target.name) ?? []), await measure(c.target, options, probe(c))]);
      }
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
    const lines = [
      `catalog ${alias}; ${rounds} alternating rounds of ${options.duration} s at ${options.connections} connections, read cache off; load average ${loadavg()[0]!.toFixed(2)} after`,
      ...(canned ? [`searches answered from memory (--canned): ${canned.counts().canned}, forwarded to Elasticsearch: ${canned.counts().forwarded}`] : []),
      '',
      '| workload | process | CPU ms/request, median (lowest) | of it in the kernel | ES CPU ms/request behind it | req/s | p50 |',
      '|---|---|---|---|---|---|---|',
    ];
    for (const [w, list] of contenders) {
      for (const c of list) {
        const ms = runs.get(c.target.name)!;
        const cpu = ms.map((m) => m.gatewayCpuMs ?? NaN);
        lines.push(
          `| ${w} | ${c.name} | ${middle(cpu).toFixed(2)} (${Math.min(...cpu).toFixed(2)}) | ${middle(ms.map((m) => m.gatewaySystemCpuMs ?? NaN)).toFixed(2)} | ${middle(ms.map((m) => m.esCpuMs)).toFixed(2)} | ${middle(ms.map((m) => m.rps)).toFixed(0)} | ${middle(ms.map((m) => m.p50))} ms |${ms.some((m) => m.errors > 0) ? ' errors' : ''}`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await canned?.close();
    rmSync(dir, { recursive: true, force: true });
    await dropRedisPrefix(redis, prefix).catch(() => undefined);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-gateway-floor', main);
