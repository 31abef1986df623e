/**
 * A busy gateway process on a Redis Cluster of its own (ports 7310-7315, started fresh by this test
 * and deleted after it, since a primary is killed) gets SIGTERM while the primary of the write
 * stream's slot is dead and its replica has not taken over yet: it exits 0 (not cut off by the
 * SHUTDOWN_GRACE_MS deadline) within seconds, and the writes it refuses meanwhile get 503, never 500.
 * The stop waits about as long as the failover: every Redis call to that slot fails only after its
 * Cluster redirections (a few seconds), so what must stay bounded is how many such calls a stop
 * waits for (README, SHUTDOWN_GRACE_MS).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import calculateSlot from 'cluster-key-slot';
import type { Cluster } from 'ioredis';
import { SellerTokenStore } from '../src/publish/sellerTokens.js';
import { createElasticsearchClient } from '../src/store/elasticsearch/client.js';
import { dropDeploymentIndices } from '../src/store/elasticsearch/listingIndex.js';
import { createRedisClient } from '../src/store/redis/client.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { ON_CHAIN, testConfig, waitFor } from './support/harness.js';
import { fundBuyer } from './support/chainFunding.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { SellerTokenRecords } from '../src/store/redis/sellerTokens.js';

const PORT = Number(process.env.REDIS_STOP_CLUSTER_PORT ?? 7310);
const NODES = [0, 1, 2].map((i) => `127.0.0.1:${PORT + i}`).join(',');
const ENTRY = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const hasRedisServer = spawnSync('sh', ['-c', 'command -v redis-server && command -v redis-cli && command -v flock'], { stdio: 'ignore' }).status === 0;
const clusterScript = (command: 'start' | 'stop') =>
  spawnSync('bash', ['scripts/cluster.sh', 'redis', command], { env: { ...process.env, REDIS_CLUSTER_PORT: String(PORT) }, encoding: 'utf8', timeout: 90_000 });

describe('Redis Cluster: SIGTERM right after the write stream primary died', function () {
  this.timeout(180_000);
  const config = testConfig();
  /** Holds the cluster's lock while this test uses it: test runs of other worktrees wait their turn. */
  let lock: ChildProcessWithoutNullStreams | undefined;
  let redis: Cluster | undefined;
  let gateway: ChildProcessWithoutNullStreams | undefined;

  before(async function () {
    if (!hasRedisServer) {
      console.log('    (skipped: redis-server, redis-cli or flock is missing, so no scratch Redis Cluster can be started)');
      this.skip();
    }
    lock = spawn('flock', ['--close', '--timeout', '150', `/tmp/redis-cluster-${PORT}.lock`, 'sh', '-c', 'echo locked; cat']);
    await new Promise<void>((resolve, reject) => {
      lock!.stdout.once('data', () => resolve());
      lock!.once('exit', (code) => reject(new Error(`could not take /tmp/redis-cluster-${PORT}.lock (flock exit ${code})`)));
    });
    // Fresh every time: a previous run left it with a dead primary, or not at all.
    clusterScript('stop');
    const started = clusterScript('start');
    assert.equal(started.status, 0, `scripts/cluster.sh redis start failed:\n${started.stderr}`);
    redis = createRedisClient(`redis+cluster://${NODES}`) as Cluster;
    redis.on('error', () => {});
  });

  after(async () => {
    gateway?.kill('SIGKILL');
    redis?.disconnect();
    const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
    await dropDeploymentIndices(elasticsearch, config.listingsIndex, config.listingsAlias).catch(() => undefined);
    await elasticsearch.close();
    if (lock) {
      clusterScript('stop');
      lock.stdin.end();
    }
  });

  it('exits 0 within a few seconds; writes refused meanwhile get 503, never 500', async () => {
    const prefix = config.redisPrefix;
    const { secret } = await new SellerTokenStore(new SellerTokenRecords(redis!, prefix)).issue(['tools.stop.test'], 'stop');
    const payer = newWallet();
    await fundBuyer(payer.address, 10n ** 12n);

    gateway = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
      env: {
        ...process.env,
        // It settles on the dev chain as every harness does (the facilitator key, the node, roomy sponsor budgets).
        ...ON_CHAIN,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'debug',
        REDIS_CLUSTER_NODES: NODES,
        REDIS_PREFIX: prefix,
        LISTINGS_ALIAS: config.listingsAlias,
        LISTINGS_INDEX: config.listingsIndex,
        ...Object.fromEntries(['PUBLISH', 'FACILITATOR', 'FACILITATOR_PAYER'].map((n) => [`RATE_LIMIT_${n}`, 'off'])),
      },
    });
    let out = '';
    gateway.stdout.on('data', (chunk) => (out += String(chunk)));
    gateway.stderr.on('data', (chunk) => (out += String(chunk)));
    const exited = new Promise<number | null>((resolve) => gateway!.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!/listening on (http:\/\/\S+)/.test(out)) {
      assert.ok(Date.now() < deadline && gateway.exitCode === null, `the gateway did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;

    const statuses: number[] = [];
    const publish = async (i: number) => {
      const res = await fetch(`${url}/discovery/publish`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify({
          type: 'mcp', resource: `mcp://tools.stop.test/tool_${i}`, name: `tool_${i}`, description: `Stop test tool number ${i}.`,
          inputSchema: { type: 'object', properties: {} }, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo: payer.address },
        }),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
      if (res.status >= 400) assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    };
    // Busy from before the fault until the stop: settlements for one resource, each with a new payee
    // and price (every one asks for a catalog write of that resource), and a few publishes.
    const bodies = await Promise.all(Array.from({ length: 300 }, (_, i) => exactRequest(payer, requirements(newWallet().address, { amount: String(1000 + i) }))));
    let next = 0;
    let settledBeforeTheFault = 0;
    let faulted = false;
    const settling = Array.from({ length: 20 }, async () => {
      while (next < bodies.length && gateway!.exitCode === null) {
        const body = bodies[next++]!;
        const res = await fetch(`${url}/settle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).catch(() => undefined);
        if (!faulted && res?.status === 200) settledBeforeTheFault += 1;
      }
    });
    await Promise.all(Array.from({ length: 10 }, (_, i) => publish(i)));
    await new Promise((r) => setTimeout(r, 1500));
    // The fault must come while settlements are flowing: on a slow machine 1.5 s may not be
    // enough for 30, so wait for them (bounded; the assertion below reports a shortfall).
    await waitFor(async () => settledBeforeTheFault > 30 || next >= bodies.length, 30_000).catch(() => undefined);

    const owner = redis!.slots[calculateSlot(redisKeys(prefix).writeStream)]![0]!;
    const pid = /process_id:(\d+)/.exec(execFileSync('redis-cli', ['-p', owner.split(':')[1]!, 'info', 'server'], { encoding: 'utf8' }))![1]!;
    faulted = true;
    process.kill(Number(pid), 'SIGKILL');
    // Writes while the primary is dead (its replica takes over only after cluster-node-timeout, 3 s).
    const refused = Promise.all(Array.from({ length: 4 }, (_, i) => publish(1000 + i)));
    await new Promise((r) => setTimeout(r, 1500));
    const signalled = Date.now();
    gateway.kill('SIGTERM');
    const code = await exited;
    const took = Date.now() - signalled;
    await Promise.all([refused.catch(() => undefined), ...settling]);
    assert.ok(settledBeforeTheFault > 30, `${settledBeforeTheFault} settlements before the fault`);
    const steps = out.split('\n').filter((l) => /stop step done|grace|stopped/.test(l)).join('\n');
    assert.equal(code, 0, `exit ${code} after ${took} ms:\n${steps}`);
    // Exit 0: not cut off by the deadline (SHUTDOWN_GRACE_MS, 10 s for the whole stop); the stop waits about as long as the failover takes.
    assert.ok(took < 10_000, `stopped ${took} ms after SIGTERM:\n${steps}`);
    assert.deepEqual(statuses.filter((s) => s !== 201 && s !== 503), [], `publish statuses: ${statuses.join(' ')}`);
  });
});
