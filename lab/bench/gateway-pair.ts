/**
 * The gateway's CPU per read, two codes side by side (issue 42 item 4, issue 46 item 3): this
 * checkout's service and REF's (a git worktree, lab/lib/codeWorktree.ts) on the same kept catalog,
 * each in a process of its own, the read cache off, measured in alternating rounds (the order
 * flips every round) with the bench:search mixes, so the machine's drift falls on both. Per code
 * and workload: the gateway process's CPU per request (/proc), the same net of what the idle
 * process spends anyway (its background workers, measured before the rounds, per second, over the
 * round's requests per second), Elasticsearch's CPU per request behind it, requests per second and
 * p50. The lowest and the median round are given: a busy neighbour inflates CPU, never deflates it.
 *
 *   npm run bench -- gateway-pair --alias ALIAS --against REF[,REF...] [--workloads search,resources,explain]
 *   (a REF that is a directory is used as it is: a checkout of its own, e.g. `git worktree add`)
 *                                 [--rounds 6] [--duration 8] [--connections 16] [--idle 20] [--canned]
 *
 * `--canned`: the gateways talk to Elasticsearch through lab/lib/cannedSearches.ts, which answers
 * every search it has seen once from memory, so Elasticsearch's CPU no longer competes with the
 * gateways' for the cores and small differences between codes show (the ES column is then ~0).
 */
import { existsSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { createElasticsearchClient, createRedisClient, dropRedisPrefix, elasticsearchNodeUrls, fail, loadConfigOrFail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { startServiceProcess } from '../lib/benchService.js';
import { head, removeWorktree, ROOT, worktreeOf, type Code } from '../lib/codeWorktree.js';
import { elasticsearchCpuMs, measure, middle, processCpuMs, processCpuSplitMs, type Measured, type Target } from '../lib/httpLoad.js';
import { resourcesMix, searchMix } from '../lib/searchQueryMix.js';
import { startCannedSearches, type CannedSearches } from '../lib/cannedSearches.js';

const USAGE = 'usage: bench-gateway-pair --alias ALIAS --against REF[,REF...] [--workloads search,resources,explain] [--rounds N] [--duration S] [--connections N] [--idle S] [--canned]';

const WORKLOADS: Record<string, string[]> = {
  search: searchMix().map((q) => `/discovery/search?${q}`),
  explain: searchMix('&explain=1').map((q) => `/discovery/search?${q}`),
  resources: resourcesMix().map((q) => `/discovery/resources?${q}`),
};

interface Gateway {
  code: Code;
  child: ChildProcess;
  url: string;
  /** CPU ms per second the process spends with no request. */
  idleMsPerS: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A ref as a worktree of its own, or a directory as it is (a checkout kept beside this one, whose
 * .cache may be shared: the worktree of a ref goes under .cache/).
 */
function checkout(ref: string): Code {
  if (!existsSync(ref) || !statSync(ref).isDirectory()) return worktreeOf(ref, 'bench-gateway-pair');
  const sha = execFileSync('git', ['rev-parse', '--short=8', 'HEAD'], { cwd: ref, encoding: 'utf8' }).trim();
  return { label: `${ref} (${sha})`, dir: ref };
}

async function idleCpu(child: ChildProcess, seconds: number): Promise<number> {
  const before = processCpuMs(child.pid) ?? 0;
  await sleep(seconds * 1000);
  return ((processCpuMs(child.pid) ?? 0) - before) / seconds;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine(
    {
      options: {
        alias: { type: 'string' },
        against: { type: 'string' },
        workloads: { type: 'string', default: 'search,resources' },
        rounds: { type: 'string', default: '6' },
        duration: { type: 'string', default: '8' },
        connections: { type: 'string', default: '16' },
        idle: { type: 'string', default: '20' },
        canned: { type: 'boolean', default: false },
      },
    },
    USAGE,
  );
  if (!values.alias || !values.against) fail(USAGE);
  const workloads = values.workloads.split(',').map((w) => w.trim());
  for (const w of workloads) if (!WORKLOADS[w]) fail(`unknown workload ${w}: ${Object.keys(WORKLOADS).join(', ')}`);
  const rounds = numberOption('rounds', values.rounds, { min: 1 });
  const options = { connections: numberOption('connections', values.connections), duration: numberOption('duration', values.duration, { integer: false }) };
  const config = loadConfigOrFail();
  const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
  const redis = createRedisClient(config.redisUrl);
  const stamp = Date.now().toString(36);
  const prefix = `bench-gateway-pair:${stamp}:`;
  // Several refs (comma-separated): every code side by side, this checkout last.
  const codes = [...values.against.split(',').map((ref) => checkout(ref.trim())), head()];
  const gateways: Gateway[] = [];
  let canned: CannedSearches | undefined;
  try {
    if (!(await elasticsearch.indices.existsAlias({ name: values.alias }))) fail(`no alias ${values.alias}: keep a catalog first (npm run bench -- search --alias ${values.alias} --keep)`);
    const index = Object.keys(await elasticsearch.indices.getAlias({ name: values.alias }))[0]!;
    const esUrl = elasticsearchNodeUrls(config.elasticsearchUrl)[0]!;
    if (values.canned) canned = await startCannedSearches(esUrl);
    for (const [i, code] of codes.entries()) {
      const env = {
        LISTINGS_ALIAS: values.alias,
        LISTINGS_INDEX: index,
        REDIS_PREFIX: `${prefix}${i}:`,
        CURSOR_SECRET: `bench-gateway-pair-${stamp}`,
        READ_CACHE_MS: '0',
        ...(canned ? { ELASTICSEARCH_URL: canned.url } : {}),
      };
      const { child, url } = await startServiceProcess(env, [], code.dir !== ROOT ? code.dir : undefined);
      gateways.push({ code, child, url, idleMsPerS: 0 });
    }
    const target = (g: Gateway, workload: string): Target => ({ name: `${workload} ${g.code.label}`, url: g.url, requests: WORKLOADS[workload]!.map((path) => ({ method: 'GET' as const, path })) });
    const probe = (g: Gateway) => ({ esUrl, es: () => elasticsearchCpuMs(elasticsearch), gateway: () => processCpuMs(g.child.pid), gatewaySystem: () => processCpuSplitMs(g.child.pid)?.system });
    // Warm both (embeddings of the mix's queries, JIT), then the idle CPU of each.
    for (const g of gateways) for (const w of workloads) await measure(target(g, w), options, probe(g), 3);
    await sleep(5000);
    for (const g of gateways) g.idleMsPerS = await idleCpu(g.child, numberOption('idle', values.idle));
    const runs = new Map<string, Measured[]>();
    for (let round = 0; round < rounds; round++) {
      // The order turns every round, so no code always runs first or last.
      const order = gateways.map((_, i) => gateways[(i + round) % gateways.length]!);
      for (const w of workloads) {
        for (const g of order) {
          const key = `${w} ${g.code.label}`;
          runs.set(key, [...(runs.get(key) ?? []), await measure(target(g, w), options, probe(g))]);
        }
      }
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
    const lines = [
      `catalog ${values.alias}; ${rounds} alternating rounds of ${options.duration} s at ${options.connections} connections per code and workload, read cache off; load average ${loadavg()[0]!.toFixed(2)} after`,
      `idle gateway CPU: ${gateways.map((g) => `${g.code.label} ${g.idleMsPerS.toFixed(1)} ms/s`).join(', ')}`,
      ...(canned ? [`searches answered from memory (--canned): ${canned.counts().canned}, forwarded to Elasticsearch: ${canned.counts().forwarded}`] : []),
      '',
      '| workload | code | gateway CPU ms/request, median (lowest) | net of idle, median | of it in the kernel, median | ES CPU ms/request behind it | req/s | p50 |',
      '|---|---|---|---|---|---|---|---|',
    ];
    for (const w of workloads) {
      for (const g of gateways) {
        const ms = runs.get(`${w} ${g.code.label}`)!;
        const cpu = ms.map((m) => m.gatewayCpuMs ?? NaN);
        const net = ms.map((m) => (m.gatewayCpuMs ?? NaN) - g.idleMsPerS / Math.max(m.rps, 1));
        lines.push(
          `| ${w} | ${g.code.label} | ${middle(cpu).toFixed(2)} (${Math.min(...cpu).toFixed(2)}) | ${middle(net).toFixed(2)} | ${middle(ms.map((m) => m.gatewaySystemCpuMs ?? NaN)).toFixed(2)} | ${middle(ms.map((m) => m.esCpuMs)).toFixed(2)} | ${middle(ms.map((m) => m.rps)).toFixed(0)} | ${middle(ms.map((m) => m.p50))} ms |`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const g of gateways) g.child.kill('SIGTERM');
    await canned?.close();
    for (const code of codes) if (code.worktree) removeWorktree(code.dir);
    await dropRedisPrefix(redis, prefix).catch(() => undefined);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

runMain('bench-gateway-pair', main);
