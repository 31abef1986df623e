/**
 * Where the gateway's CPU goes per read (issue 46 item 3): the service in a child process under
 * V8's sampling profiler (`node --cpu-prof`), one process per workload of the bench:search mixes,
 * warmed up, then a steady load; the profile's samples of the measured seconds only (the last
 * ones before SIGTERM: the process exits right after the load) are charged to a part of the path
 * (lab/lib/profileParts.ts) and given in microseconds per request, beside the process's CPU per
 * request from /proc over the same seconds (the two should agree within the profiler's own cost).
 *
 *   npm run bench -- gateway-profile --alias ALIAS [--workloads search,resources,explain,distinct] [--duration 10]
 *                                    [--connections 16] [--warm-up 5] [--top 25] [--keep-profiles DIR]
 *                                    [--service-root DIR] [--interval US]
 *
 * `--interval`: the sampling interval in microseconds (1000, node's default). The profiler's own
 * cost grows as it shrinks (at 200 us the process spent 4.1 ms a search against 0.8 unprofiled),
 * so the parts are shares of a slowed process: read them as ratios, not as absolute costs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { createElasticsearchClient, createRedisClient, dropRedisPrefix, elasticsearchNodeUrls, fail, loadConfigOrFail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { startServiceProcess } from '../lib/benchService.js';
import { startCannedSearches, type CannedSearches } from '../lib/cannedSearches.js';
import { elasticsearchCpuMs, measure, processCpuMs, type Target } from '../lib/httpLoad.js';
import { profileParts, type CpuProfile } from '../lib/profileParts.js';
import { distinctSearchQueries, resourcesMix, searchMix } from '../lib/searchQueryMix.js';

const USAGE = 'usage: bench-gateway-profile --alias ALIAS [--workloads search,resources,explain,distinct] [--duration S] [--connections N] [--warm-up S] [--top N] [--keep-profiles DIR] [--service-root DIR] [--interval US] [--canned]';

const WORKLOADS: Record<string, string[]> = {
  search: searchMix().map((q) => `/discovery/search?${q}`),
  explain: searchMix('&explain=1').map((q) => `/discovery/search?${q}`),
  resources: resourcesMix().map((q) => `/discovery/resources?${q}`),
  // Texts that never repeat within a run: each embedded, typo-checked and its lexical part built afresh.
  distinct: distinctSearchQueries(20_000).map((q) => `/discovery/search?${q}`),
};

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        alias: { type: 'string' },
        workloads: { type: 'string', default: 'search,resources' },
        duration: { type: 'string', default: '10' },
        connections: { type: 'string', default: '16' },
        'warm-up': { type: 'string', default: '5' },
        top: { type: 'string', default: '25' },
        'keep-profiles': { type: 'string' },
        'service-root': { type: 'string' },
        interval: { type: 'string', default: '1000' },
        canned: { type: 'boolean', default: false },
      },
    },
    USAGE,
  );
  if (!values.alias) fail(USAGE);
  const workloads = values.workloads.split(',').map((w) => w.trim());
  for (const w of workloads) if (!WORKLOADS[w]) fail(`unknown workload ${w}: ${Object.keys(WORKLOADS).join(', ')}`);
  const options = { connections: numberOption('connections', values.connections), duration: numberOption('duration', values.duration, { integer: false }) };
  const warmUp = numberOption('warm-up', values['warm-up'], { integer: false });
  const top = numberOption('top', values.top, { min: 0 });
  const config = loadConfigOrFail();
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const redis = createRedisClient(config.redisUrl);
  const stamp = Date.now().toString(36);
  const prefix = `bench-gateway-profile:${stamp}:`;
  const esUrl = elasticsearchNodeUrls(config.elasticsearchUrl)[0]!;
  // --canned: searches answered from memory (lab/lib/cannedSearches.ts), so no sample is the
  // gateway waiting on a core Elasticsearch holds.
  let canned: CannedSearches | undefined;
  try {
    if (values.canned) canned = await startCannedSearches(esUrl);
    if (!(await elasticsearch.indices.existsAlias({ name: values.alias }))) fail(`no alias ${values.alias}: keep a catalog first (npm run bench -- search --alias ${values.alias} --keep)`);
    const index = Object.keys(await elasticsearch.indices.getAlias({ name: values.alias }))[0]!;
    process.stdout.write(`catalog ${values.alias}; ${options.duration} s at ${options.connections} connections per workload after ${warmUp} s of warm-up, read cache off; load average ${loadavg()[0]!.toFixed(2)} before\n`);
    for (const workload of workloads) {
      const dir = values['keep-profiles'] ? join(values['keep-profiles'], workload) : mkdtempSync(join(tmpdir(), 'gateway-profile-'));
      const env = { LISTINGS_ALIAS: values.alias, LISTINGS_INDEX: index, REDIS_PREFIX: `${prefix}${workload}:`, CURSOR_SECRET: `bench-gateway-profile-${stamp}`, READ_CACHE_MS: '0', ...(canned ? { ELASTICSEARCH_URL: canned.url } : {}) };
      const { child, url } = await startServiceProcess(env, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', values.interval], values['service-root']);
      const target: Target = { name: workload, url, requests: WORKLOADS[workload]!.map((path) => ({ method: 'GET' as const, path })) };
      const probe = { esUrl, es: () => elasticsearchCpuMs(elasticsearch), gateway: () => processCpuMs(child.pid) };
      await measure(target, options, probe, warmUp);
      const measured = await measure(target, options, probe);
      const requests = Math.round(measured.rps * options.duration);
      const stoppedAt = performance.now();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      // The profile ends when the process exits: its measured seconds end at most the exit's delay before.
      const exitMs = performance.now() - stoppedAt;
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`no profile written in ${dir}`);
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
      if (!values['keep-profiles']) rmSync(dir, { recursive: true, force: true });
      const parts = profileParts(profile, { lastMs: options.duration * 1000 + exitMs, skipLastMs: exitMs });
      const perRequest = (us: number) => (us / Math.max(requests, 1)).toFixed(0);
      const lines = [
        '',
        `## ${workload}: ${requests} requests, ${measured.rps.toFixed(0)} req/s, p50 ${measured.p50} ms; gateway CPU ${(measured.gatewayCpuMs ?? NaN).toFixed(2)} ms/request (/proc), ${(parts.busyUs / 1000 / Math.max(requests, 1)).toFixed(2)} ms sampled (main thread)`,
        '',
        '| part of the path | us per request | share of sampled |',
        '|---|---|---|',
        ...parts.byPart.map(([name, us]) => `| ${name} | ${perRequest(us)} | ${((100 * us) / Math.max(parts.busyUs, 1)).toFixed(1)}% |`),
      ];
      if (top > 0) {
        lines.push('', `top ${top} functions by self time:`, '', '| function | where | us per request |', '|---|---|---|');
        for (const f of parts.topFunctions.slice(0, top)) lines.push(`| ${f.name} | ${f.where} | ${perRequest(f.us)} |`);
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    }
  } finally {
    await canned?.close();
    await dropRedisPrefix(redis, prefix).catch(() => undefined);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-gateway-profile', main);
