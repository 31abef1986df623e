/**
 * Announce benchmark, everything on 127.0.0.1:
 *  1. announce-to-searchable: N resources (default 200) announced at a steady rate to the full
 *     service (HTTP), each served by a local x402 v2 seller (allow-listed); latency measured until
 *     the listing is returned by GET /discovery/search?q=<its unique word>. Target p99 < 2 s.
 *  2. accepted announces/s with autocannon: distinct URLs (each one queues a probe that runs
 *     behind) and a repeated URL (the deduplicated path). Target >= 1,000/s.
 *   npx tsx lab/bench/announce.ts [--count 200] [--rate 20] [--duration 10] [--connections 50]
 * Uses its own index and Redis prefix (bench-announce-*), deleted at the end.
 */
import { spawn } from 'node:child_process';
import type autocannon from 'autocannon';
import { startServiceInProcess } from '../lib/benchService.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { latencySummary, percentile } from '../lib/latency.js';

const { values } = parseCommandLine(
  {
    options: {
      count: { type: 'string', default: '200' },
      rate: { type: 'string', default: '20' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '50' },
    },
  },
  'usage: bench-announce [--count N] [--rate PER_SECOND] [--duration S] [--connections N]',
);
const count = numberOption('count', values.count);
const rate = numberOption('rate', values.rate, { integer: false });
const duration = numberOption('duration', values.duration, { integer: false });
const connections = numberOption('connections', values.connections);

/**
 * A seller in its own process (sellers live elsewhere; in-process it would steal the service's CPU)
 * that answers every path with an x402 v2 402 whose describe title carries a unique word.
 */
function startSeller(): Promise<{ port: number; stop(): void }> {
  const code = `
    import http from 'node:http';
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const word = path.replace(/[^a-z0-9]/gi, '');
      const challenge = {
        x402Version: 2,
        resource: { url: 'http://127.0.0.1' + path, description: 'Benchmark resource', mimeType: 'application/json' },
        accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '1000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          payTo: '0x1111111111111111111111111111111111111111', maxTimeoutSeconds: 60, extra: {} }],
        describe: { title: 'Bench ' + word, description: 'announce benchmark', tags: ['bench'] },
      };
      res.writeHead(402, { 'Content-Type': 'application/json', 'PAYMENT-REQUIRED': Buffer.from(JSON.stringify(challenge)).toString('base64') }).end('{}');
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve({ port: Number(chunk.toString().trim()), stop: () => child.kill() }));
    child.once('exit', (code) => reject(new Error(`seller exited with ${code}`)));
  });
}

/** autocannon in a child process; distinct URLs get a counter appended per request. */
function runAutocannon(options: { url: string; resourcePrefix: string; distinctUrls: boolean; duration: number; connections: number }): Promise<autocannon.Result> {
  const code = `
    import autocannon from 'autocannon';
    const o = JSON.parse(process.env.LOAD_OPTIONS);
    let n = 0;
    const body = () => JSON.stringify({ resource: o.distinctUrls ? o.resourcePrefix + (n += 1) : o.resourcePrefix });
    autocannon({ url: o.url, connections: o.connections, duration: o.duration,
      requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, body: body() }) }] },
      (err, result) => { if (err) { console.error(err); process.exit(1); } process.stdout.write(JSON.stringify(result)); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      env: { ...process.env, LOAD_OPTIONS: JSON.stringify(options) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as autocannon.Result) : reject(new Error(`autocannon exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const seller = await startSeller();
  const sellerPort = seller.port;
  const tag = Date.now().toString(36);
  const service = await startServiceInProcess({
    ...process.env,
    LISTINGS_ALIAS: `bench-announce-${tag}`,
    LISTINGS_INDEX: `bench-announce-${tag}-v1`,
    REDIS_PREFIX: `bench-announce:${tag}:`,
    LOG_LEVEL: 'warn',
    PROBE_ALLOW: `127.0.0.1:${sellerPort}`,
    RATE_LIMIT_ANNOUNCE: 'off',
    // Every benchmark resource lives on one loopback host; the per-host probe rate would pace them.
    PROBE_HOST_RATE: '100000',
  });
  const { container, url: base } = service;

  try {
    // 1. announce -> searchable
    process.stderr.write(`announce-to-searchable: ${count} resources at ${rate}/s ...\n`);
    const latencies: number[] = [];
    const failures: string[] = [];
    /** Announce accepted -> probe finished (the rest is the catalog write path and the ES refresh). */
    const probeDelays: number[] = [];
    const one = async (i: number) => {
      const path = `/bench/item${tag}x${i}`;
      const word = path.replace(/[^a-z0-9]/gi, '').toLowerCase();
      const started = performance.now();
      const res = await fetch(`${base}/discovery/announce`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ resource: `http://127.0.0.1:${sellerPort}${path}` }),
      });
      const { id } = (await res.json()) as { id: string };
      const deadline = started + 30_000;
      while (performance.now() < deadline) {
        const search = await fetch(`${base}/discovery/search?q=${word}&limit=5`);
        if (search.ok) {
          const body = (await search.json()) as { results: Array<{ id: string }> };
          if (body.results.some((r) => r.id === id)) {
            latencies.push(performance.now() - started);
            const record = await container.probing.store.get(id);
            if (record?.lastProbedAt && record.announcedAt) probeDelays.push(record.lastProbedAt - record.announcedAt);
            return;
          }
        }
        await new Promise((r) => setTimeout(r, 50)); // granularity of the measurement
      }
      failures.push(id);
    };
    const pending: Array<Promise<void>> = [];
    for (let i = 0; i < count; i += 1) {
      pending.push(one(i));
      await new Promise((r) => setTimeout(r, 1000 / rate));
    }
    await Promise.all(pending);
    const searchable = {
      resources: count,
      searchable: latencies.length,
      notSearchableWithin30s: failures.length,
      ...latencySummary(latencies),
      probeDoneP50Ms: 0,
      probeDoneP99Ms: 0,
    };
    probeDelays.sort((a, b) => a - b);
    if (probeDelays.length > 0) {
      searchable.probeDoneP50Ms = percentile(probeDelays, 50);
      searchable.probeDoneP99Ms = percentile(probeDelays, 99);
    }

    // 2. accepted announces/s
    // autocannon runs in its own process so the load generator does not share the service's CPU.
    const cannon = (title: string, resourcePrefix: string, distinctUrls: boolean) => {
      process.stderr.write(`autocannon: ${title} (${duration} s, ${connections} connections) ...\n`);
      return runAutocannon({ url: `${base}/discovery/announce`, resourcePrefix, distinctUrls, duration, connections });
    };
    const summary = (r: autocannon.Result) => ({
      requests: r.requests.total,
      perSecondAvg: Math.round(r.requests.average),
      non2xx: r.non2xx,
      errors: r.errors,
      latencyP50Ms: r.latency.p50,
      latencyP99Ms: r.latency.p99,
    });
    const distinct = await cannon('distinct URLs, one probe each', `http://127.0.0.1:${sellerPort}/load/${tag}n`, true);
    const backlog = await container.probing.store.dueCount(Date.now());
    const drainStarted = Date.now();
    while ((await container.probing.store.dueCount(Date.now())) > 0 && Date.now() - drainStarted < 120_000) {
      await new Promise((r) => setTimeout(r, 250));
    }
    const drainedInMs = Date.now() - drainStarted;
    const repeated = await cannon('one URL repeated (deduplicated)', `http://127.0.0.1:${sellerPort}/load/same`, false);

    process.stdout.write(
      `${JSON.stringify({ announceToSearchable: searchable, acceptedDistinct: { ...summary(distinct), probesStillDueAfterLoad: backlog, backlogDrainedInMs: drainedInMs }, acceptedRepeated: summary(repeated) }, null, 2)}\n`,
    );
  } finally {
    await service.close();
    seller.stop();
  }
}

runMain('bench-announce', main);
