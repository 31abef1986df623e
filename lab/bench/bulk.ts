/**
 * Bulk load through the write path into Elasticsearch with the ingest consumers of N gateway
 * processes (issue 14: at least 10,000 listings/s). This process is the producer, as `npm run
 * import` is: it validates generated listings and appends them to the durable stream; the gateways'
 * consumers apply them with `_bulk`. Each configuration (CATALOG_BATCH_SIZE x CATALOG_CONCURRENCY x
 * gateways) gets a fresh scratch deployment, and the report gives listings/s queued and end to end
 * (until every listing is counted on the alias) with the CPU each stage used per 1,000 listings:
 * the producer (validation, stream append), the gateways (stream read, `_bulk`, change feed) and
 * Elasticsearch (indexing), which shows where the time goes.
 *
 *   npx tsx lab/bench/bulk.ts [--count 50000] [--configs 1000x2x1,1000x4x1,2000x2x1,1000x2x2,1000x2x3]
 *
 * The embedding model is off (EMBEDDING_MODEL_DIR=/nonexistent): embeddings are not on the write path.
 */
import { loadConfig } from '../../src/door.js';
import { dropDeploymentData } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { createRedisClient } from '../../src/door.js';
import { openCatalogSession } from '../../src/door.js';
import { fail, numberOption, parseCommandLine, runMain } from '../../src/door.js';
import { describeCpu, startCpuWindow, startGateways, stopGateways, type CpuUse, type Gateway } from '../lib/gatewayFleet.js';
import { generateListings } from '../lib/listingGenerator.js';

const { values } = parseCommandLine(
  {
    options: {
      count: { type: 'string', default: '50000' },
      configs: { type: 'string', default: '1000x2x1,1000x4x1,2000x2x1,1000x2x2,1000x2x3' },
      chunk: { type: 'string', default: '5000' },
      // Where the gateways write V8 CPU profiles (node --cpu-prof), to see what the consumer spends its CPU on.
      'profile-dir': { type: 'string' },
    },
  },
  'usage: bench-bulk [--count N] [--configs BATCHxCONCURRENCYxGATEWAYS,...] [--chunk N] [--profile-dir DIR]',
);
const count = numberOption('count', values.count, { max: 1_000_000 });
const chunk = numberOption('chunk', values.chunk);
const configs = values.configs.split(',').map((text) => {
  const [batchSize, concurrency, gateways] = text.trim().split('x');
  return {
    batchSize: numberOption('configs (batch size)', batchSize, { max: 10_000 }),
    concurrency: numberOption('configs (concurrency)', concurrency, { max: 16 }),
    gateways: numberOption('configs (gateways)', gateways, { max: 8 }),
  };
});
if (configs.length === 0) fail('--configs names no configuration');

interface Row {
  batchSize: number;
  concurrency: number;
  gateways: number;
  queuedPerSecond: number;
  endToEndPerSecond: number;
  producerCpuMs: number;
  /** Time Elasticsearch's indexing, refresh and merge threads spent on this index alone (the node is shared). */
  indexStats: { indexMs: number; refreshMs: number; mergeMs: number; indexOps: number };
  cpu: CpuUse;
}

async function runConfig(config: (typeof configs)[number], listings: unknown[]): Promise<Row> {
  const stamp = Date.now().toString(36);
  const env: Record<string, string> = {
    LISTINGS_ALIAS: `bench-bulk-${stamp}`,
    LISTINGS_INDEX: `bench-bulk-${stamp}-v1`,
    REDIS_PREFIX: `bench-bulk:${stamp}:`,
    EMBEDDING_MODEL_DIR: '/nonexistent',
    CATALOG_BATCH_SIZE: String(config.batchSize),
    CATALOG_CONCURRENCY: String(config.concurrency),
  };
  const serviceConfig = loadConfig({ ...process.env, ...env });
  const elasticsearch = createElasticsearchClient(serviceConfig.elasticsearchUrl, { requestTimeoutMs: 60_000 });
  const redis = createRedisClient(serviceConfig.redisUrl);
  let gateways: Gateway[] = [];
  // The producer's own consumer is never started: only the gateways apply writes.
  const session = await openCatalogSession({ ...process.env, ...env });
  try {
    const profileDir = values['profile-dir'];
    gateways = await startGateways(config.gateways, env, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    const stop = await startCpuWindow(elasticsearch, gateways.map((g) => g.child.pid));
    const producerBefore = process.cpuUsage();
    const started = performance.now();
    for (let offset = 0; offset < listings.length; offset += chunk) {
      const result = await session.catalog.writer.upsertMany(listings.slice(offset, offset + chunk), { source: 'bench' });
      if (result.rejected.length > 0) fail(`generator produced invalid listings: ${JSON.stringify(result.rejected.slice(0, 2))}`, 1);
    }
    const queuedMs = performance.now() - started;
    const producer = process.cpuUsage(producerBefore);
    const producerCpuMs = (producer.user + producer.system) / 1000;
    const deadline = Date.now() + 900_000;
    for (;;) {
      const searchable = (await elasticsearch.count({ index: serviceConfig.listingsAlias })).count;
      if (searchable >= listings.length) break;
      if (Date.now() > deadline) fail(`only ${searchable} of ${listings.length} searchable after 15 minutes`, 1);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const totalMs = performance.now() - started;
    const cpu = await stop();
    const stats = (await elasticsearch.indices.stats({ index: serviceConfig.listingsIndex, metric: ['indexing', 'refresh', 'merge'] }))._all.primaries;
    return {
      indexStats: {
        indexMs: stats?.indexing?.index_time_in_millis ?? 0,
        refreshMs: stats?.refresh?.total_time_in_millis ?? 0,
        mergeMs: stats?.merges?.total_time_in_millis ?? 0,
        // More than one per listing: batches applied again (a timed-out `_bulk` Elasticsearch still ran).
        indexOps: stats?.indexing?.index_total ?? 0,
      },
      ...config,
      queuedPerSecond: Math.round(listings.length / (queuedMs / 1000)),
      endToEndPerSecond: Math.round(listings.length / (totalMs / 1000)),
      producerCpuMs,
      cpu,
    };
  } finally {
    await stopGateways(gateways);
    await session.close();
    await dropDeploymentData(elasticsearch, redis, serviceConfig);
    await Promise.allSettled([elasticsearch.close(), redis.quit()]);
  }
}

async function main(): Promise<void> {
  const listings = generateListings(count, 1);
  const rows: Row[] = [];
  for (const config of configs) {
    const row = await runConfig(config, listings);
    rows.push(row);
    process.stderr.write(
      `batch ${row.batchSize} x concurrency ${row.concurrency} x ${row.gateways} gateway(s): ${row.endToEndPerSecond}/s end to end, ${row.queuedPerSecond}/s queued; ${describeCpu(row.cpu)}\n`,
    );
  }
  const perThousand = (cpuMs: number) => ((cpuMs / count) * 1000).toFixed(0);
  const lines = [
    `${count} generated listings per configuration, each into a fresh index; CPU ms per 1,000 listings by stage`,
    '',
    '| CATALOG_BATCH_SIZE | CATALOG_CONCURRENCY | gateways | end to end | queued | producer CPU | gateways CPU | ES CPU (node) | ES index / refresh / merge time of this index | ES index ops per listing | ES cores | machine busy | load average |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.batchSize} | ${r.concurrency} | ${r.gateways} | **${r.endToEndPerSecond}/s** | ${r.queuedPerSecond}/s | ${perThousand(r.producerCpuMs)} ms | ` +
        `${perThousand(r.cpu.gatewayCores * r.cpu.wallMs)} ms | ${perThousand(r.cpu.elasticsearchCpuMs)} ms | ` +
        `${perThousand(r.indexStats.indexMs)} / ${perThousand(r.indexStats.refreshMs)} / ${perThousand(r.indexStats.mergeMs)} ms | ${(r.indexStats.indexOps / count).toFixed(2)} | ` +
        `${r.cpu.elasticsearchCores.toFixed(2)} | ` +
        `${(r.cpu.machineBusy * 100).toFixed(0)}% | ${r.cpu.loadAverage.toFixed(1)} |`,
    ),
    '',
    'Target: >= 10,000 listings/s end to end.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

runMain('bench-bulk', main);
