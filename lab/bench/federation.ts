/**
 * Reach pacing benchmark (issue 25): an upstream catalog naming N resources spread over H hosts
 * (loopback addresses 127.0.0.1 .. 127.0.0.H, each its own server), crawled by the service and
 * probed under its per-host rate. Reports the crawl time, the time until every resource was
 * probed and until every 402 was listed (one in `--refuse-every` answers 200 and must be
 * refused), and the most probes any host received in one second, against PROBE_HOST_RATE.
 * The hosts run in a child process that counts every request it serves (the service's CPU is
 * not theirs). The loopback allowance (PROBE_ALLOW=127.0.0.0/8) is the test-only one the
 * announce tests use; nothing here leaves the machine.
 *   npx tsx lab/bench/federation.ts [--resources 10000] [--hosts 200] [--rate 5] [--concurrency 32] [--refuse-every 20]
 * Uses its own index and Redis prefix (bench-reach-*), deleted at the end.
 */
import { spawn } from 'node:child_process';
import { startServiceInProcess } from '../lib/benchService.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';

const { values } = parseCommandLine(
  {
    options: {
      resources: { type: 'string', default: '10000' },
      hosts: { type: 'string', default: '200' },
      rate: { type: 'string', default: '5' },
      concurrency: { type: 'string', default: '32' },
      'refuse-every': { type: 'string', default: '20' },
      'page-size': { type: 'string', default: '500' },
    },
  },
  'usage: bench-reach [--resources N] [--hosts H] [--rate PER_HOST_PER_SECOND] [--concurrency N] [--refuse-every K] [--page-size N]',
);
const resources = numberOption('resources', values.resources);
const hosts = numberOption('hosts', values.hosts, { max: 250 });
const rate = numberOption('rate', values.rate);
const concurrency = numberOption('concurrency', values.concurrency, { max: 256 });
const refuseEvery = numberOption('refuse-every', values['refuse-every']);
const pageSize = numberOption('page-size', values['page-size'], { max: 1000 });

interface HostStats {
  total: number;
  /** Most requests one host served within one calendar second (the window the rate is enforced in). */
  maxPerSecond: number;
  /** Most within any 1,000 ms (two calendar seconds' budgets can meet at their border). */
  maxPerSlidingSecond: number;
  busiestHost: string;
}

/** The H hosts and the upstream in a child process: prints its JSON address book, then answers `stats` on stdin. */
function startWorld(): Promise<{ hosts: string[]; upstream: string; stats(): Promise<HostStats>; stop(): void }> {
  const code = `
    import http from 'node:http';
    const [count, hostCount, refuseEvery, pageSize] = JSON.parse(process.env.WORLD);
    const seen = new Map();
    const challenge = (url) => Buffer.from(JSON.stringify({ x402Version: 2, resource: { url, description: 'reach bench' },
      accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '1000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
        payTo: '0x1111111111111111111111111111111111111111', maxTimeoutSeconds: 60, extra: {} }] })).toString('base64');
    const listen = (server, address) => new Promise((resolve) => server.listen(0, address, () => resolve(address + ':' + server.address().port)));
    const hosts = [];
    for (let i = 1; i <= hostCount; i++) {
      const server = http.createServer((req, res) => {
        const host = req.headers.host;
        if (!seen.has(host)) seen.set(host, []);
        seen.get(host).push(Date.now());
        const n = Number((req.url.match(/\\d+/) || ['0'])[0]);
        if (n % refuseEvery === refuseEvery - 1) return void res.writeHead(200).end('{}');
        res.writeHead(402, { 'PAYMENT-REQUIRED': challenge('http://' + host + req.url) }).end('{}');
      });
      hosts.push(await listen(server, '127.0.0.' + i));
    }
    const items = Array.from({ length: count }, (_, n) => ({ resource: 'http://' + hosts[n % hostCount] + '/r/' + n, type: 'http', x402Version: 2,
      accepts: [], lastUpdated: 1763632800, serviceName: 'bench', tags: ['bench'] }));
    const upstream = http.createServer((req, res) => {
      const url = new URL(req.url, 'http://x');
      const offset = Number(url.searchParams.get('offset') || 0);
      const limit = Math.min(Number(url.searchParams.get('limit') || pageSize), 1000);
      res.writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ x402Version: 2, items: items.slice(offset, offset + limit), pagination: { limit, offset, total: count } }));
    });
    const upstreamAddress = await listen(upstream, '127.0.0.1');
    process.stdout.write(JSON.stringify({ hosts, upstream: 'http://' + upstreamAddress + '/discovery/resources' }) + '\\n');
    process.stdin.on('data', () => {
      let total = 0, maxPerSecond = 0, maxPerSlidingSecond = 0, busiestHost = '';
      for (const [host, times] of seen) {
        total += times.length;
        const perSecond = new Map();
        for (const t of times) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) || 0) + 1);
        const top = Math.max(...perSecond.values());
        if (top > maxPerSecond) { maxPerSecond = top; busiestHost = host; }
        times.sort((a, b) => a - b);
        for (let i = 0, j = 0; i < times.length; i++) { while (times[i] - times[j] >= 1000) j++; maxPerSlidingSecond = Math.max(maxPerSlidingSecond, i - j + 1); }
      }
      process.stdout.write(JSON.stringify({ total, maxPerSecond, maxPerSlidingSecond, busiestHost }) + '\\n');
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, WORLD: JSON.stringify([resources, hosts, refuseEvery, pageSize]) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: Array<(line: string) => void> = [];
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      lines.shift()?.(line);
    }
  });
  const nextLine = () => new Promise<string>((resolve) => lines.push(resolve));
  return nextLine().then((first) => {
    const book = JSON.parse(first) as { hosts: string[]; upstream: string };
    return {
      ...book,
      stats: async () => {
        const reply = nextLine();
        child.stdin.write('stats\n');
        return JSON.parse(await reply) as HostStats;
      },
      stop: () => child.kill(),
    };
  });
}

async function main(): Promise<void> {
  const world = await startWorld();
  const tag = `${Date.now().toString(36)}`;
  const service = await startServiceInProcess({
    ...process.env,
    LISTINGS_ALIAS: `bench-reach-${tag}`,
    LISTINGS_INDEX: `bench-reach-${tag}-v1`,
    REDIS_PREFIX: `bench-reach:${tag}:`,
    LOG_LEVEL: 'error',
    PROBE_ALLOW: '127.0.0.0/8',
    PROBE_HOST_RATE: String(rate),
    PROBE_CONCURRENCY: String(concurrency),
    PROBE_TIMEOUT_MS: '5000',
    REACH_UPSTREAMS: `bench=${world.upstream}`,
    REACH_PAGE_SIZE: String(pageSize),
    REACH_TICK_MS: '3600000',
    READ_CACHE_MS: '0',
    // The listings' embeddings are another benchmark's subject (bench:embedding): not computed here.
    EMBEDDING_MODEL_DIR: '/nonexistent-bench-reach',
  });
  const { container } = service;
  const refusals = Math.floor(resources / refuseEvery);
  try {
    process.stderr.write(`reach: ${resources} resources on ${hosts} hosts, PROBE_HOST_RATE ${rate}/s, PROBE_CONCURRENCY ${concurrency} ...\n`);
    const started = performance.now();
    const report = (await container.federation.poller.pass(true)).bench;
    const crawlMs = performance.now() - started;
    if (!report?.ok) throw new Error(`the crawl failed: ${JSON.stringify(report)}`);
    // Probed: every host request served, and nothing due in the next 10 s (listed ones come back in a day).
    let probedMs = 0;
    for (;;) {
      const stats = await world.stats();
      const due = await container.probing.store.dueCount(Date.now() + 10_000);
      if (stats.total >= resources && due === 0) {
        probedMs = performance.now() - started;
        break;
      }
      if (performance.now() - started > 30 * 60_000) throw new Error(`not all probed within 30 min (${stats.total} of ${resources}, ${due} due)`);
      await new Promise((r) => setTimeout(r, 250));
    }
    process.stderr.write(`all ${resources} probed after ${Math.round(probedMs)} ms; waiting for the listings ...\n`);
    let listed = 0;
    for (;;) {
      try {
        await service.elasticsearch.indices.refresh({ index: service.config.listingsAlias });
        listed = (await service.elasticsearch.count({ index: service.config.listingsAlias, query: { term: { removed: false } } })).count;
      } catch (err) {
        // The shared Elasticsearch can be slow to answer on a loaded machine: ask again.
        process.stderr.write(`count failed (${(err as Error).message}); retrying\n`);
      }
      if (listed >= resources - refusals || performance.now() - started > 35 * 60_000) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const listedMs = performance.now() - started;
    const stats = await world.stats();
    const perHost = resources / hosts;
    console.log(
      JSON.stringify(
        {
          resources,
          hosts,
          resourcesPerHost: perHost,
          configuredHostRatePerSecond: rate,
          probeConcurrency: concurrency,
          crawl: { pages: report.pages, ms: Math.round(crawlMs), queued: report.counts.queued },
          probedAllMs: Math.round(probedMs),
          listedAllMs: Math.round(listedMs),
          listed,
          expectedListed: resources - refusals,
          expectedRefused: refusals,
          hostRequests: stats.total,
          maxRequestsOneHostOneSecond: stats.maxPerSecond,
          maxRequestsOneHostAnySliding1000ms: stats.maxPerSlidingSecond,
          busiestHost: stats.busiestHost,
          // The floor the per-host rate sets: a host's resources cannot be probed faster.
          pacingFloorMs: Math.round(((perHost - 1) / rate) * 1000),
          probesPerSecond: Math.round((resources / probedMs) * 1000),
          loadAverage1m: (await import('node:os')).loadavg()[0]?.toFixed(1),
        },
        null,
        2,
      ),
    );
  } finally {
    await service.close();
    world.stop();
  }
}

runMain("bench-reach", main);
