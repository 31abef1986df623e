/**
 * The main flows against a real Redis Cluster (3 primaries, 1 replica each, on loopback; started by
 * scripts/cluster.sh and left running like the single Redis of scripts/services.sh): the app is
 * built with ioredis' Cluster client from a redis+cluster:// URL. Every multi-key script,
 * transaction and stream must stay in one hash slot here, or Redis refuses it with CROSSSLOT.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import request from 'supertest';
import { Cluster } from 'ioredis';
import { createRedisClient, scanKeys } from '../src/store/redis/client.js';
import calculateSlot from 'cluster-key-slot';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { WriteStream } from '../src/store/redis/writeStream.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { announce, listing, settled } from './support/announcing.js';
import { answers, startServer, v1Challenge, type LocalServer } from './support/sellers.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { ensureRedisCluster, REDIS_CLUSTER_URL } from './support/redisCluster.js';
import { assertMined, fundBuyer, usdcBalance } from './support/chainFunding.js';

const CLUSTER_URL = REDIS_CLUSTER_URL;
const PAYMENT = { scheme: 'exact', network: NETWORK, asset: USDC, amount: '2500', payTo: '0x1111111111111111111111111111111111111111' };

describe('Redis Cluster: the main flows through the Cluster client', function () {
  this.timeout(60_000);
  let h: Harness;
  let seller: LocalServer;
  let closed = false;

  before(async function () {
    ensureRedisCluster(this);
    seller = await startServer({ '/weather': answers.v1(() => v1Challenge(seller.url('/weather'))) });
    h = await startHarness({
      REDIS_URL: CLUSTER_URL,
      PROBE_ALLOW: `127.0.0.1:${seller.port}`,
      PROBE_TIMEOUT_MS: '2000',
      RATE_LIMIT_ANNOUNCE: 'off',
      RATE_LIMIT_FACILITATOR_PAYER: '3/1m',
    });
  });
  after(async () => {
    if (!closed) await h?.close();
    await seller?.close();
  });

  it('runs on the Cluster client, and the cluster has three primaries', () => {
    assert.ok(h.redis instanceof Cluster);
    assert.equal((h.redis as Cluster).nodes('master').length, 3);
  });

  it('seller tokens and publish: issue, publish through the write stream, search finds it, revoke refuses', async () => {
    const { secret, token } = await h.container.publishing.tokens.issue(['tools.cluster.test'], 'cluster');
    assert.ok((await h.container.publishing.tokens.list()).some((t) => t.id === token.id));
    const tool = {
      type: 'mcp',
      resource: 'mcp://tools.cluster.test/slot_counter',
      name: 'slot_counter',
      description: 'Counts the hash slots of a Redis Cluster for a keyspace.',
      inputSchema: { type: 'object', properties: { pattern: { type: 'string' } } },
      payment: PAYMENT,
    };
    const res = await request(h.app).post('/discovery/publish').set('Authorization', `Bearer ${secret}`).send(tool);
    assert.ok([200, 201, 202].includes(res.status), `${res.status} ${JSON.stringify(res.body)}`);
    const id = res.body.id as string;
    await waitFor(async () => {
      const found = await request(h.app).get('/mcp/tools').query({ q: 'hash slots keyspace' }).expect(200);
      return (found.body.results as Array<{ id: string }>).some((r) => r.id === id);
    });
    await h.container.publishing.tokens.revoke(token.id);
    await request(h.app).post('/discovery/publish').set('Authorization', `Bearer ${secret}`).send(tool).expect(401);
  });

  it('announce: the probe schedule, the probe and the write stream list the seller', async () => {
    const accepted = await announce(h.app, { resource: seller.url('/weather') });
    assert.equal((await settled(h.app, accepted.id)).status, 'listed');
    const listed = await listing(h.app, accepted.id);
    assert.equal(listed.resource, seller.url('/weather'));
    const stats = await h.container.catalog.queue.stats();
    assert.equal(stats.deadLetters, 0);
  });

  it('settle: 10 concurrent duplicates move the funds once, in one mined transaction', async () => {
    const payer = newWallet();
    const payee = newWallet();
    await fundBuyer(payer.address, 10_000n);
    const body = await exactRequest(payer, requirements(payee.address, { amount: '700' }));
    const responses = await Promise.all(Array.from({ length: 10 }, () => request(h.app).post('/settle').send(body)));
    for (const res of responses) assert.deepEqual([res.status, res.body], [200, responses[0]!.body]);
    assert.equal(responses[0]!.body.success, true);
    await assertMined(responses[0]!.body.transaction);
    assert.equal(await usdcBalance(payer.address), 9300n);
    assert.equal(await usdcBalance(payee.address), 700n);
  });

  it('rate limits: the per-payer budget counts distinct payments (a two-key script in one slot)', async () => {
    const payer = newWallet();
    const payee = newWallet();
    await fundBuyer(payer.address, 10_000n);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const body = await exactRequest(payer, requirements(payee.address, { amount: '10' }));
      statuses.push((await request(h.app).post('/verify').send(body)).status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  it('/readyz: every primary keeps writes (an append-only file and a replica the service waits for)', async () => {
    const res = await request(h.app).get('/readyz').expect(200);
    assert.equal(res.body.redisPersistence.durable, true);
    // One clause per primary, each naming its file and its replica.
    assert.equal(res.body.redisPersistence.summary.match(/append-only file \(fsync everysec\), 1 replica\(s\) waited for/g)?.length, 3);
  });

  it('an acknowledged catalog write waits for the replica of its primary (WAIT), so a failover cannot drop it', async () => {
    const cluster = h.redis as Cluster;
    // A stream no consumer reads, in the catalog group's slot like the real one (the tag ignores the prefix).
    const stream = new WriteStream(h.redis, `${h.config.redisPrefix}wait:`);
    const append = async () => {
      const started = Date.now();
      await stream.append([{ payload: JSON.stringify({ op: 'noop' }) }]);
      return Date.now() - started;
    };
    // The replica WAIT counts is the one connected to the slot's primary: ask the primary (the
    // client's slot table may have been read from a node whose view of the replicas lagged).
    const primary = cluster.slots[calculateSlot(redisKeys(h.config.redisPrefix).writeStream)]![0]!;
    const replicaPort = await waitFor(async () => {
      const replication = spawnSync('redis-cli', ['-p', primary.split(':')[1]!, 'info', 'replication'], { encoding: 'utf8' }).stdout;
      return /^slave0:.*port=(\d+),state=online/m.exec(replication)?.[1];
    });
    const info = spawnSync('redis-cli', ['-p', replicaPort, 'info', 'server'], { encoding: 'utf8' }).stdout;
    const pid = Number(/process_id:(\d+)/.exec(info)![1]);
    // A frozen replica cannot acknowledge: the write waits out the replica timeout (500 ms).
    process.kill(pid, 'SIGSTOP');
    let frozen: number;
    try {
      frozen = await append();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const healthy = await append();
    assert.ok(frozen >= 450, `${frozen} ms with the replica frozen`);
    assert.ok(healthy < 400, `${healthy} ms with the replica answering`);
  });

  it('closing drops the deployment\'s keys from every primary', async () => {
    const prefix = h.config.redisPrefix;
    let before = 0;
    await scanKeys(h.redis, redisKeys(prefix).everything, async (keys) => void (before += keys.length));
    assert.ok(before > 10, `${before} keys before`);
    closed = true;
    await h.close();
    const probe = createRedisClient(CLUSTER_URL);
    try {
      let left = 0;
      await scanKeys(probe, redisKeys(prefix).everything, async (keys) => void (left += keys.length));
      assert.equal(left, 0);
    } finally {
      probe.disconnect();
    }
  });
});
