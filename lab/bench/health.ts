/**
 * Active health benchmark (issue 13, README "Active health"): what checking N listings (default
 * 10,000) at the default schedule costs the service, everything on 127.0.0.1.
 *  1. N resources spread over H hosts (default 50 loopback ports of one seller process) are
 *     announced and listed; a share of them (default 10%) gets a settlement, so it counts as
 *     recently active (re-checked every 15 min, the others every 6 h).
 *  2. Idle cost: the service's CPU over `--idle` seconds with nothing due.
 *  3. Check cost: every listing is made due at once and checked (the full probe path: SSRF-safe
 *     fetch, per-host rate limit, lease, health record, the listing write and the signals flush
 *     to Elasticsearch); the service's CPU from the first check until the write stream drained,
 *     divided by N, is the CPU of one check. The seller counts requests per host and second, so the
 *     per-host rate limit is seen holding during this burst.
 *  4. The default schedule: checks per minute = active / 15 min + idle / 6 h; CPU seconds per
 *     minute = idle cost + checks per minute x CPU per check; requests per second per host =
 *     checks per second / H (and for the worst case of every listing on one host, checks per second).
 *   npx tsx lab/bench/health.ts [--listings 10000] [--hosts 50] [--active 0.1] [--idle 20]
 * The service runs in this process (CPU from process.cpuUsage; the seller is another process, the
 * bench driver only polls). Its own index and Redis prefix (bench-health-*), deleted at the end.
 */
import { spawn } from 'node:child_process';
import { startServiceInProcess } from '../lib/benchService.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { loadConfig } from '../../src/door.js';
import { redisKeys } from '../../src/door.js';

const { values } = parseCommandLine(
  {
    options: {
      listings: { type: 'string', default: '10000' },
      hosts: { type: 'string', default: '50' },
      active: { type: 'string', default: '0.1' },
      idle: { type: 'string', default: '20' },
    },
  },
  'usage: bench-health [--listings N] [--hosts H] [--active SHARE] [--idle SECONDS]',
);
const listings = numberOption('listings', values.listings);
const hosts = numberOption('hosts', values.hosts);
const activeShare = numberOption('active', values.active, { integer: false });
const idleSeconds = numberOption('idle', values.idle, { integer: false });

interface Seller {
  ports: number[];
  /** Requests per host (port) and second so far: the busiest host-second and the total. */
  report(): Promise<{ total: number; busiestHostSecond: number }>;
  stop(): void;
}

/** One process listening on `count` loopback ports (one host each), answering every path with an x402 v2 402. */
function startSeller(count: number): Promise<Seller> {
  const code = `
    import http from 'node:http';
    const perHostSecond = new Map();
    let total = 0;
    const ports = [];
    let listening = 0;
    for (let i = 0; i < ${count}; i += 1) {
      const server = http.createServer((req, res) => {
        total += 1;
        const key = server.address().port + ':' + Math.floor(Date.now() / 1000);
        perHostSecond.set(key, (perHostSecond.get(key) ?? 0) + 1);
        const path = (req.url ?? '/').split('?')[0];
        const challenge = {
          x402Version: 2,
          resource: { url: 'http://127.0.0.1:' + server.address().port + path, description: 'Health benchmark', mimeType: 'application/json' },
          accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '1000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
            payTo: '0x1111111111111111111111111111111111111111', maxTimeoutSeconds: 60, extra: {} }],
          describe: { title: 'Health bench ' + path.replace(/[^a-z0-9]/gi, ''), description: 'health benchmark', tags: ['bench'] },
        };
        res.writeHead(402, { 'Content-Type': 'application/json', 'PAYMENT-REQUIRED': Buffer.from(JSON.stringify(challenge)).toString('base64') }).end('{}');
      });
      server.listen(0, '127.0.0.1', () => {
        ports.push(server.address().port);
        if (++listening === ${count}) process.stdout.write(JSON.stringify({ ports }) + '\\n');
      });
    }
    process.stdin.on('data', () => {
      process.stdout.write(JSON.stringify({ total, busiestHostSecond: Math.max(0, ...perHostSecond.values()) }) + '\\n');
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: Array<(line: string) => void> = [];
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      lines.shift()?.(line);
    }
  });
  const nextLine = () => new Promise<string>((resolve) => lines.push(resolve));
  return nextLine().then((first) => ({
    ports: (JSON.parse(first) as { ports: number[] }).ports,
    report: () => {
      const line = nextLine();
      child.stdin.write('report\n');
      return line.then((l) => JSON.parse(l) as { total: number; busiestHostSecond: number });
    },
    stop: () => child.kill(),
  }));
}

const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (value: number, digits = 3) => Number(value.toFixed(digits));

async function main(): Promise<void> {
  const seller = await startSeller(hosts);
  const tag = Date.now().toString(36);
  const service = await startServiceInProcess({
    ...process.env,
    LISTINGS_ALIAS: `bench-health-${tag}`,
    LISTINGS_INDEX: `bench-health-${tag}-v1`,
    REDIS_PREFIX: `bench-health:${tag}:`,
    LOG_LEVEL: 'warn',
    PROBE_ALLOW: '127.0.0.1/32',
    RATE_LIMIT_ANNOUNCE: 'off',
    PROBE_MIN_INTERVAL_MS: '0',
  });
  const { container, config } = service;
  const { probing, announce } = container;
  let checked = 0;
  const metricsHook = probing.prober.onResult;
  probing.prober.onResult = (result, reason) => {
    checked += 1;
    metricsHook?.(result, reason);
  };
  const until = async (what: string, done: () => Promise<boolean> | boolean, timeoutMs = 600_000) => {
    const started = Date.now();
    while (!(await done())) {
      if (Date.now() - started > timeoutMs) throw new Error(`${what}: not done within ${timeoutMs} ms`);
      await sleep(200);
    }
  };
  const drained = async () => {
    const stats = await container.catalog.queue.stats();
    return stats.depth === 0 && (await service.redis.scard(redisKeys(config.redisPrefix).signalsDirty)) === 0;
  };

  try {
    // 1. List N resources over H hosts.
    process.stderr.write(`listing ${listings} resources on ${hosts} hosts ...\n`);
    const ids: string[] = [];
    for (let i = 0; i < listings; i += 1) {
      const port = seller.ports[i % hosts]!;
      const result = await announce.announce({ resource: `http://127.0.0.1:${port}/h${tag}/item${i}` });
      ids.push(result.id);
    }
    await until('initial probes', () => checked >= listings);
    const active = ids.slice(0, Math.round(listings * activeShare));
    for (const id of active) await container.signals.counters.recordSettle(id, '0x2222222222222222222222222222222222222222');
    await until('catalog writes', drained);

    // 2. The service idle: nothing due.
    process.stderr.write(`idle for ${idleSeconds} s ...\n`);
    let cpu = cpuSeconds();
    await sleep(idleSeconds * 1000);
    const idleCpuPerMinute = ((cpuSeconds() - cpu) / idleSeconds) * 60;

    // 3. Every listing checked once (made due now), until the writes and the health flush are in Elasticsearch.
    process.stderr.write(`checking all ${listings} ...\n`);
    const before = await seller.report();
    checked = 0;
    // Measured from before the schedule change: the worker starts on the first ids while the rest are being made due.
    cpu = cpuSeconds();
    const started = performance.now();
    const now = Date.now();
    await Promise.all(ids.map((id) => probing.store.postpone(id, now)));
    probing.worker.wake();
    await until('health checks', () => checked >= listings);
    const checksDoneS = (performance.now() - started) / 1000;
    await until('writes and health flush', drained);
    const burstS = (performance.now() - started) / 1000;
    // The idle service's own share of the burst is not the checks' cost.
    const burstCpu = cpuSeconds() - cpu - (idleCpuPerMinute / 60) * burstS;
    const after = await seller.report();
    const cpuPerCheckMs = (burstCpu / listings) * 1000;

    // 4. The default schedule.
    const defaults = loadConfig({}).announce;
    const activeCount = active.length;
    const checksPerMinute = activeCount / (defaults.healthActiveIntervalMs / 60_000) + (listings - activeCount) / (defaults.healthIdleIntervalMs / 60_000);
    const checksPerSecond = checksPerMinute / 60;
    const sample = await container.catalog.reader.get(active[0]!);
    process.stdout.write(
      `${JSON.stringify(
        {
          listings,
          hosts,
          recentlyActive: activeCount,
          defaultSchedule: { activeIntervalMin: defaults.healthActiveIntervalMs / 60_000, idleIntervalH: defaults.healthIdleIntervalMs / 3_600_000 },
          burst: {
            checks: listings,
            checksDoneInS: round(checksDoneS, 1),
            writtenAndFlushedInS: round(burstS, 1),
            checksPerSecond: round(listings / checksDoneS, 0),
            sellerRequests: after.total - before.total,
            busiestHostSecond: after.busiestHostSecond,
            probeHostRateLimit: config.announce.probeHostRatePerSecond,
            serviceCpuSeconds: round(burstCpu, 2),
            cpuPerCheckMs: round(cpuPerCheckMs, 3),
          },
          atDefaultSchedule: {
            checksPerMinute: round(checksPerMinute, 1),
            idleServiceCpuSecondsPerMinute: round(idleCpuPerMinute, 3),
            healthCpuSecondsPerMinute: round((checksPerMinute * cpuPerCheckMs) / 1000, 3),
            totalCpuSecondsPerMinute: round(idleCpuPerMinute + (checksPerMinute * cpuPerCheckMs) / 1000, 3),
            requestsPerSecondPerHost: round(checksPerSecond / hosts, 4),
            requestsPerSecondIfOneHost: round(checksPerSecond, 3),
          },
          sampleHealth: sample?.signals.health ?? null,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    await service.close();
    seller.stop();
  }
}

runMain('bench-health', main);
