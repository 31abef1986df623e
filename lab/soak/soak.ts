/**
 * `npm run bench -- soak [--minutes 60] [--warmup 10] [--sample-seconds 60] [--concurrency 3] [--pause-ms 100] [--out DIR]`
 *
 * Mixed traffic (lab/soak/soakTraffic.ts) against one gateway process on a scratch deployment:
 * its own redis-server (append-only file, everysec, on a free port, so every key and byte of Redis
 * is the deployment's) and a scratch index on the Elasticsearch at ELASTICSEARCH_URL, seeded with
 * 2,000 generated listings; it settles on the dev chain at CHAIN_RPC_URL (started when no node
 * answers there) from the dev facilitator key, its payers funded with minted test USDC. Samples memory, event-loop delay, Redis and the index every
 * `--sample-seconds` (lab/soak/soakSampler.ts), then checks (lab/soak/soakVerdict.ts):
 * no 5xx, every acknowledged write served as written at the end, every acknowledged settlement on
 * chain exactly once, and no growth after the warm-up
 * beyond the bounds it explains. Writes report.md, samples.json and one SVG plot per series to
 * --out (default soak-report/). Exits 1 when a check fails.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { SellerTokenStore } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { createRedisClient } from '../../src/door.js';
import { SellerTokenRecords } from '../../src/door.js';
import { answers, startServer, v1Challenge } from '../../test/support/sellers.js';
import { newWallet } from '../../test/support/payments.js';
import { startPrivateRedis } from '../../test/support/privateRedis.js';
import { loadGeneratedListings } from '../lib/benchCatalog.js';
import { startServiceProcess } from '../lib/benchService.js';
import { numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { stopGateways } from '../lib/gatewayFleet.js';
import { chainSettlementEnv, currentBlock, describeChainCheck, fundPayers, startDevChain } from '../lib/chainSettlements.js';
import { GatewayMetrics, takeSample, type Sample } from './soakSampler.js';
import { POOLS, SoakTraffic } from './soakTraffic.js';
import { checkFinalState, soakVerdict, writeReport } from './soakVerdict.js';

const SEED_LISTINGS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string) => process.stderr.write(`[soak] ${message}\n`);

runMain('soak', async () => {
  const { values } = parseCommandLine(
    {
      options: {
        minutes: { type: 'string', default: '60' },
        warmup: { type: 'string', default: '10' },
        'sample-seconds': { type: 'string', default: '60' },
        concurrency: { type: 'string', default: '3' },
        'pause-ms': { type: 'string', default: '100' },
        out: { type: 'string', default: 'soak-report' },
      },
    },
    'usage: soak [--minutes 60] [--warmup 10] [--sample-seconds 60] [--concurrency 3] [--pause-ms 100] [--out DIR]',
  );
  const options = {
    minutes: numberOption('minutes', values.minutes, { min: 0.5, max: 24 * 60, integer: false }),
    warmup: numberOption('warmup', values.warmup, { min: 0, max: 24 * 60, integer: false }),
    sampleSeconds: numberOption('sample-seconds', values['sample-seconds'], { min: 1, max: 3600 }),
    concurrency: numberOption('concurrency', values.concurrency, { min: 1, max: 64 }),
    pauseMs: numberOption('pause-ms', values['pause-ms'], { min: 0, max: 60_000 }),
    out: values.out,
  };
  mkdirSync(options.out, { recursive: true });

  const run = `soak${Date.now().toString(36)}`;
  const redisServer = await startPrivateRedis(['--appendonly', 'yes', '--appendfsync', 'everysec']);
  const seller = await startServer({ '/*': answers.v1(() => v1Challenge('http://placeholder.invalid/')) });
  seller.route('/*', (req, res) => answers.v1(() => v1Challenge(seller.url((req.url ?? '/').split('?')[0]!)))(req, res));
  const env: Record<string, string> = {
    REDIS_URL: redisServer.url,
    REDIS_PREFIX: `${run}:`,
    LISTINGS_ALIAS: `${run}-listings`,
    LISTINGS_INDEX: `${run}-listings-v1`,
    PROBE_ALLOW: `127.0.0.1:${seller.port}`,
    ...chainSettlementEnv(),
    ...Object.fromEntries(['ANNOUNCE', 'PUBLISH', 'PUBLISH_TOKEN', 'FACILITATOR', 'FACILITATOR_PAYER'].map((n) => [`RATE_LIMIT_${n}`, 'off'])),
  };
  const redis = createRedisClient(redisServer.url) as Redis;
  const elasticsearch = createElasticsearchClient(process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200');
  let gateway: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  let failed: string | undefined;
  try {
    log(`seeding ${SEED_LISTINGS} generated listings into ${env.LISTINGS_ALIAS}`);
    await loadGeneratedListings(env, SEED_LISTINGS);
    const { secret } = await new SellerTokenStore(new SellerTokenRecords(redis, env.REDIS_PREFIX!)).issue(['soak.example'], 'soak');
    startDevChain();
    const payers = Array.from({ length: 40 }, () => newWallet());
    await fundPayers(payers.map((p) => p.address), 10n ** 15n);
    const firstBlock = await currentBlock();
    const payees = Array.from({ length: POOLS.payees }, () => newWallet().address);

    gateway = await startServiceProcess(env);
    const readyz = (await (await fetch(`${gateway.url}/readyz`)).json()) as { redisPersistence?: { durable: boolean; summary: string } };
    log(`gateway ${gateway.url} (pid ${gateway.child.pid}); Redis persistence: ${readyz.redisPersistence?.summary}`);

    const traffic = new SoakTraffic({ url: gateway.url, sellerToken: secret, toolHost: 'soak.example', payers, payees, sellerUrl: (i) => seller.url(`/paid/${i}`), paidUrl: (j) => seller.url(`/settled/${j}`) });
    log('writing every pool member once');
    await traffic.fillPools(options.concurrency);
    const started = Date.now();
    const minutes = () => (Date.now() - started) / 60_000;
    let stopping = false;
    let requests = 0;
    const serverErrors = () => [...traffic.serverErrors.values()].reduce((a, b) => a + b, 0);
    const workers = Array.from({ length: options.concurrency }, async () => {
      while (!stopping) {
        await traffic.step();
        requests += 1;
        await sleep(options.pauseMs);
      }
    });
    const targets = { gatewayUrl: gateway.url, gatewayPid: gateway.child.pid!, redis, prefix: env.REDIS_PREFIX!, elasticsearch, index: env.LISTINGS_INDEX! };
    const gatewayMetrics = new GatewayMetrics(gateway.url);
    const samples: Sample[] = [await takeSample(targets, 0, { requests, serverErrors: serverErrors(), settles: traffic.settlesAcknowledged }, gatewayMetrics)];
    log(`traffic for ${options.minutes} min (warm-up ${options.warmup} min), a sample every ${options.sampleSeconds} s`);
    while (minutes() < options.minutes) {
      await sleep(Math.min(options.sampleSeconds * 1000, Math.max(0, (options.minutes - minutes()) * 60_000)));
      const sample = await takeSample(targets, minutes(), { requests, serverErrors: serverErrors(), settles: traffic.settlesAcknowledged }, gatewayMetrics);
      samples.push(sample);
      writeFileSync(join(options.out, 'samples.json'), `${JSON.stringify(samples, null, 1)}\n`);
      log(`t=${sample.minute.toFixed(1)} min: ${requests} requests, rss ${sample.rssMb.toFixed(0)} MB, heap ${sample.heapUsedMb.toFixed(0)} MB, loop p99 ${sample.eventLoopP99Ms.toFixed(0)} ms, redis ${sample.redisUsedMemoryMb.toFixed(1)} MB / ${sample.redisKeys} keys, stream ${sample.writeStreamLength}, index ${sample.indexDocs} docs, 5xx ${sample.serverErrors}`);
    }
    stopping = true;
    gatewayMetrics.stop();
    await Promise.all(workers);
    log('traffic stopped; waiting for the write stream to drain, then checking every acknowledged write');
    const final = await checkFinalState(gateway.url, traffic, redis, env.REDIS_PREFIX!, elasticsearch, env.LISTINGS_ALIAS!, firstBlock);
    log(`on chain: ${describeChainCheck(final.chain)}`);
    const verdict = soakVerdict(samples, options, traffic, final);
    writeReport(options.out, { options, samples, traffic, final, verdict, persistence: readyz.redisPersistence, requests });
    log(`report in ${options.out}/report.md: ${verdict.passed ? 'PASS' : `FAIL (${verdict.failures.join('; ')})`}`);
    if (!verdict.passed) failed = verdict.failures.join('; ');
  } finally {
    if (gateway) await stopGateways([gateway]);
    await elasticsearch.indices.delete({ index: env.LISTINGS_INDEX!, ignore_unavailable: true }).catch(() => undefined);
    await seller.close();
    redis.disconnect();
    await redisServer.close();
    await elasticsearch.close();
  }
  if (failed) throw new Error(`a check failed: ${failed}`);
});
