/**
 * Reproduction of a slow gateway stop (README "Stopping"; not part of npm test): one gateway process
 * (LOG_LEVEL=debug) on a scratch Redis Cluster and the Elasticsearch of ELASTICSEARCH_URL (a scratch
 * index and prefix), 4 clients publishing and settling (one resource, a new payee each time), then a
 * SIGKILL of the Redis primary holding the write stream's slot, then SIGTERM; prints how long the
 * stop took and each stop step. Start the cluster first and again after each run (its primary dies):
 *   REDIS_CLUSTER_PORT=7300 bash scripts/cluster.sh redis stop; REDIS_CLUSTER_PORT=7300 bash scripts/cluster.sh redis start
 *   REDIS_CLUSTER_PORT=7300 MODE=failover npx tsx lab/chaos/shutdownRepro.ts
 * MODE=failover: SIGTERM AFTER_FAILOVER_MS (3000) after the replica took over; MODE=dead: SIGTERM
 * DEAD_MS (1000) after the kill, before the failover; MODE=none: no kill, SIGTERM after
 * AFTER_FAILOVER_MS. ALL=1 prints every line the gateway logged. The scratch index is deleted at the
 * end; the keys go with the cluster (`cluster.sh redis stop`). The gateway settles on the dev chain at
 * CHAIN_RPC_URL (started when no node answers there) from the dev facilitator key.
 */
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import calculateSlot from 'cluster-key-slot';
import type { Cluster } from 'ioredis';
import { SellerTokenStore } from '../../src/door.js';
import { createRedisClient } from '../../src/door.js';
import { redisKeys } from '../../src/door.js';
import { createElasticsearchClient } from '../../src/door.js';
import { dropDeploymentIndices } from '../../src/door.js';
import { freePort } from '../lib/benchService.js';
import { chainSettlementEnv, fundPayers, startDevChain } from '../lib/chainSettlements.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from '../../test/support/payments.js';
import { SellerTokenRecords } from '../../src/door.js';

const PORT = Number(process.env.REDIS_CLUSTER_PORT ?? 7300);
const MODE = process.env.MODE ?? 'failover';
const NODES = [0, 1, 2].map((i) => `127.0.0.1:${PORT + i}`).join(',');
const RUN = `shutrepro${Date.now().toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const log = (m: string) => process.stderr.write(`[repro +${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}\n`);

const env = {
  ...process.env,
  ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9200',
  REDIS_CLUSTER_NODES: NODES,
  REDIS_PREFIX: `${RUN}:`,
  LISTINGS_ALIAS: `${RUN}-listings`,
  LISTINGS_INDEX: `${RUN}-listings-v1`,
  LOG_LEVEL: 'debug',
  HOST: '127.0.0.1',
  ...chainSettlementEnv(),
  ...Object.fromEntries(['ANNOUNCE', 'PUBLISH', 'PUBLISH_TOKEN', 'FACILITATOR', 'FACILITATOR_PAYER'].map((n) => [`RATE_LIMIT_${n}`, 'off'])),
};
const redis = createRedisClient(`redis+cluster://${NODES}`) as Cluster;
redis.on('error', () => {});
const { secret } = await new SellerTokenStore(new SellerTokenRecords(redis, env.REDIS_PREFIX)).issue(['tools.repro.test'], 'repro');
startDevChain();
const payer = newWallet();
await fundPayers([payer.address], 10n ** 12n);

const port = await freePort();
const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../../src/server.ts', import.meta.url))], {
  env: { ...env, PORT: String(port) },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const lines: string[] = [];
const keep = (chunk: Buffer) => {
  for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(`+${((Date.now() - t0) / 1000).toFixed(1)}s ${line}`);
};
child.stdout.on('data', keep);
child.stderr.on('data', keep);
const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
while (!lines.some((l) => l.includes('listening on'))) await sleep(100);
const url = `http://127.0.0.1:${port}`;
log(`gateway up at ${url}`);

let stop = false;
let ok = 0;
let failed = 0;
const load = Array.from({ length: 4 }, async (_, w) => {
  for (let i = 0; !stop; i++) {
    const unique = `${w}_${i}_${randomBytes(2).toString('hex')}`;
    try {
      let res: Response;
      if (i % 2 === 0) {
        res = await fetch(`${url}/discovery/publish`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
          body: JSON.stringify({
            type: 'mcp', resource: `mcp://tools.repro.test/tool_${unique}`, name: `tool_${unique}`, description: `Repro tool ${unique} for the shutdown test.`,
            inputSchema: { type: 'object', properties: {} }, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo: payer.address },
          }),
          signal: AbortSignal.timeout(5000),
        });
      } else {
        const body = await exactRequest(payer, requirements(newWallet().address, { amount: String(1000 + i) }));
        res = await fetch(`${url}/settle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
      }
      if (res.ok) ok++;
      else failed++;
      await res.arrayBuffer();
    } catch {
      failed++;
    }
  }
});

await sleep(5000);
const slot = calculateSlot(redisKeys(env.REDIS_PREFIX).writeStream);
const owner = redis.slots[slot]![0]!;
const pid = execFileSync('redis-cli', ['-p', owner.split(':')[1]!, 'info', 'server'], { encoding: 'utf8' }).match(/process_id:(\d+)/)![1]!;
log(`SIGKILL primary ${owner} (slot ${slot}), requests ok ${ok} failed ${failed}`);
if (MODE !== 'none') process.kill(Number(pid), 'SIGKILL');
if (MODE === 'none') await sleep(Number(process.env.AFTER_FAILOVER_MS ?? 3000));
else if (MODE === 'failover') {
  for (;;) {
    await sleep(250);
    const other = redis.nodes('master').find((n) => `${n.options.host}:${n.options.port}` !== owner);
    const nodes = await other?.cluster('NODES').catch(() => '');
    const info = await other?.cluster('INFO').catch(() => '');
    if (typeof info === 'string' && info.includes('cluster_state:ok') && typeof nodes === 'string' && nodes.includes('master,fail') ) break;
  }
  log('failover done (cluster_state:ok, the old primary marked fail)');
  await sleep(Number(process.env.AFTER_FAILOVER_MS ?? 3000));
} else {
  await sleep(Number(process.env.DEAD_MS ?? 1000));
}
stop = true;
log(`SIGTERM gateway, requests ok ${ok} failed ${failed}`);
const termAt = Date.now();
child.kill('SIGTERM');
const code = await Promise.race([exited, sleep(60_000).then(() => 'timeout')]);
log(`gateway exit ${code} after ${((Date.now() - termAt) / 1000).toFixed(1)} s`);
if (code === 'timeout') child.kill('SIGKILL');
await Promise.allSettled(load);
for (const line of lines.filter((l) => /stop|shutting|stopped|grace|pending/.test(l) || process.env.ALL)) process.stderr.write(`${line}\n`);
redis.disconnect();
const elasticsearch = createElasticsearchClient(env.ELASTICSEARCH_URL);
await dropDeploymentIndices(elasticsearch, env.LISTINGS_INDEX, env.LISTINGS_ALIAS);
await elasticsearch.close();
process.exit(0);
