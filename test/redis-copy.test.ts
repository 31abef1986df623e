/**
 * npm run redis:copy: a deployment built on the single Redis (through the service's own flows) is
 * copied into the loopback Redis Cluster (test/support/redisCluster.ts), and a service started on
 * the Cluster with the same prefix answers as the old one did: the seller token, balances, a
 * settled payment, the signals, a page cursor, a catalog write a dead gateway held.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { createRedisClient, scanKeys, type RedisClient } from '../src/store/redis/client.js';
import { copyDeployment, CopyRefused, type CopyReport } from '../scripts/lib/redisCopy.js';
import { dropRedisPrefix } from '../src/store/redis/client.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { WriteStream } from '../src/store/redis/writeStream.js';
import { startHarness, testConfig, waitFor, type Harness } from './support/harness.js';
import { listing } from './support/announcing.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { fundBuyer, usdcBalance } from './support/chainFunding.js';
import { ensureRedisCluster, REDIS_CLUSTER_URL } from './support/redisCluster.js';

const PAYMENT = { scheme: 'exact', network: NETWORK, asset: USDC, amount: '2500', payTo: '0x1111111111111111111111111111111111111111' };
const RESOURCE = { url: 'http://copy.test/report', description: 'Sales report', mimeType: 'application/json' };
/** Two events per payer, listing and day count (so a payer's third settle that day does not). */
const SIGNALS = { SIGNALS_FLUSH_MS: '200', SIGNALS_PAYER_DAILY_CAP: '2' };

const tool = (name: string, description: string) => ({
  type: 'mcp',
  resource: `mcp://tools.copy.test/${name}`,
  name,
  description,
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  payment: PAYMENT,
});

/** A key's type and content as a reader sees it (a stream with its groups and pending entries). */
async function content(redis: RedisClient, key: string): Promise<unknown> {
  const type = await redis.type(key);
  const sorted = (items: string[]) => [...items].sort();
  switch (type) {
    case 'string':
      return [type, await redis.get(key)];
    case 'hash':
      return [type, Object.entries(await redis.hgetall(key)).sort()];
    case 'set':
      return [type, sorted(await redis.smembers(key))];
    case 'zset':
      return [type, await redis.zrange(key, 0, -1, 'WITHSCORES')];
    case 'list':
      return [type, await redis.lrange(key, 0, -1)];
    case 'stream': {
      const groups = (await redis.xinfo('GROUPS', key)) as unknown[][];
      const pending = await Promise.all(
        // Each pending entry's id, consumer and delivery count (its idle time moves on).
        groups.map(async (group) => ((await redis.xpending(key, String(group[1]), '-', '+', 1000)) as unknown[][]).map(([id, consumer, , count]) => [id, consumer, count])),
      );
      return [type, await redis.xrange(key, '-', '+'), groups, pending];
    }
    default:
      return [type];
  }
}

/** Every key under the prefix with its content. */
async function snapshot(redis: RedisClient, prefix: string): Promise<Map<string, unknown>> {
  const all = new Map<string, unknown>();
  await scanKeys(redis, redisKeys(prefix).everything, async (keys) => {
    for (const key of keys) all.set(key, await content(redis, key));
  });
  return new Map([...all].sort(([a], [b]) => a.localeCompare(b)));
}

describe('npm run redis:copy: a deployment on one Redis moves into a Redis Cluster', function () {
  this.timeout(90_000);
  let source: Harness;
  let moved: Harness | undefined;
  let cluster: RedisClient;

  before(function () {
    ensureRedisCluster(this);
    cluster = createRedisClient(REDIS_CLUSTER_URL);
  });
  after(async () => {
    await moved?.close(); // the Cluster's keys and the listing index
    await source?.close(); // the single Redis' keys
    cluster?.disconnect();
  });

  it('after the copy, the service on the Cluster answers as the one on the single Redis did', async () => {
    source = await startHarness(SIGNALS);
    const { redisPrefix: prefix, listingsAlias, listingsIndex } = source.config;
    // A seller token and a listing published with it.
    const { secret } = await source.container.publishing.tokens.issue(['tools.copy.test'], 'copy');
    const published = await request(source.app).post('/discovery/publish').set('Authorization', `Bearer ${secret}`).send(tool('ledger_audit', 'Audits a ledger.'));
    assert.equal(published.status, 201, JSON.stringify(published.body));
    await listing(source.app, published.body.id);
    // Two settled payments of one payer for one resource (listed as a probe of its 402 lists it,
    // paid to its payTo: signals with payer data).
    const payer = newWallet();
    const payee = newWallet();
    await source.container.catalog.writer.upsert(
      { type: 'http', resource: RESOURCE.url, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '700', payTo: payee.address }, describe: { description: RESOURCE.description } },
      { source: 'announce' },
    );
    await listing(source.app, httpListingId(RESOURCE.url, 'GET'));
    await fundBuyer(payer.address, 10_000n);
    const settle = async (app: Harness['app'], wallet = payer) => {
      const body = await exactRequest(wallet, requirements(payee.address, { amount: '700' }), {}, RESOURCE);
      const res = await request(app).post('/settle').send(body).expect(200);
      assert.equal(res.body.success, true, JSON.stringify(res.body));
      return { body, answer: res.body as object };
    };
    const first = await settle(source.app);
    await settle(source.app);
    const reportId = httpListingId(RESOURCE.url, 'GET');
    await waitFor(async () => (await listing(source.app, reportId)).signals?.settleCount7d === 2);
    // A first page of one listing (of two) and its cursor.
    const page = await waitFor(async () => {
      const res = await request(source.app).get('/discovery/resources?limit=1').expect(200);
      return res.body.nextCursor ? res : undefined;
    });

    // The gateways stop; one of them had read a catalog write it never applied (pending in the group).
    for (const worker of [...source.container.workers].reverse()) await worker.stop();
    const held = await request(source.app).post('/discovery/publish').set('Authorization', `Bearer ${secret}`).send(tool('held_write', 'Held by a gateway that died.'));
    assert.equal(held.status, 201);
    const gone = await new WriteStream(source.redis, prefix).readNew(source.redis, 'gateway-gone', 10, 1);
    assert.equal(gone.length, 1);

    const report: CopyReport = await copyDeployment(source.redis, cluster, prefix);
    assert.deepEqual(report.verification?.problems, []);
    assert.equal(report.copied, report.scanned);
    assert.deepEqual([report.expired, report.skipped.length, report.renamed], [0, 0, 0]);
    for (const type of ['stream', 'hash', 'zset', 'set', 'string']) assert.ok(report.copiedByType[type], `a ${type} was copied`);
    // The same content in every key (a stream's groups and pending entries included).
    const before = await snapshot(source.redis, prefix);
    assert.deepEqual(await snapshot(cluster, prefix), before);
    const writes = before.get(redisKeys(prefix).writeStream) as [string, unknown[], unknown[][], unknown[][]];
    assert.deepEqual(writes[3], [[[gone[0]!.entryId, 'gateway-gone', 1]]], 'the held write is pending in the copied group');

    // The service on the Cluster, same prefix and listing index.
    moved = await startHarness({ ...SIGNALS, REDIS_URL: REDIS_CLUSTER_URL, REDIS_PREFIX: prefix, LISTINGS_ALIAS: listingsAlias, LISTINGS_INDEX: listingsIndex });
    const app = moved.app;
    // The write the dead gateway held is claimed and applied.
    await listing(app, held.body.id);
    // The seller token still authenticates (and a made-up one does not).
    const again = await request(app).post('/discovery/publish').set('Authorization', `Bearer ${secret}`).send(tool('cluster_audit', 'Audits a cluster.'));
    assert.equal(again.status, 201, JSON.stringify(again.body));
    await request(app).post('/discovery/publish').set('Authorization', `Bearer ${secret.slice(0, -4)}abcd`).send(tool('x', 'y')).expect(401);
    // Balances, and the settled payment replayed gets its first answer and moves nothing.
    assert.equal(await usdcBalance(payer.address), 8600n);
    assert.equal(await usdcBalance(payee.address), 1400n);
    const replay = await request(app).post('/settle').send(first.body).expect(200);
    assert.deepEqual(replay.body, first.answer);
    assert.equal(await usdcBalance(payer.address), 8600n);
    // Signals: the payer's third settle today is over the cap; a new payer's counts: 2 + 0 + 1.
    const other = newWallet();
    await fundBuyer(other.address, 1000n);
    await settle(app);
    await settle(app, other);
    const signals = await waitFor(async () => {
      const doc = await listing(app, reportId);
      return doc.signals?.settleCount7d !== 2 ? doc.signals : undefined;
    }, 30_000);
    assert.equal(signals.settleCount7d, 3);
    // A page cursor handed out before the move still reads the next page.
    await request(app).get(`/discovery/resources?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`).expect(200);
  });

  describe('the command', () => {
    const tsx = promisify(execFile);
    const run = (prefix: string, ...args: string[]) =>
      tsx('node_modules/.bin/tsx', ['scripts/redis-copy.ts', '--to', REDIS_CLUSTER_URL.replace('redis+cluster://', ''), ...args], {
        env: { ...process.env, REDIS_PREFIX: prefix, REDIS_CLUSTER_NODES: '' },
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
      );
    let single: RedisClient;
    let prefix: string;
    beforeEach(() => {
      single = createRedisClient(testConfig().redisUrl);
      prefix = testConfig().redisPrefix;
    });
    afterEach(async () => {
      await dropRedisPrefix(single, prefix);
      await dropRedisPrefix(cluster, prefix);
      single.disconnect();
    });

    it('refuses a target holding keys under the prefix (one line, exit 1) unless --replace; --dry-run writes nothing', async () => {
      // A name from before the hash tags (a settlement's stored result: the test ledger's balances, once used here, go with issue 44).
      const legacy = `${prefix}settle:result:0xpayload`;
      await single.set(legacy, '4200');
      await single.zadd(redisKeys(prefix).signalsDirty, 1, 'lst_a', 2, 'lst_b');
      await cluster.set(redisKeys(prefix).cursorSecret, 'left-from-an-earlier-attempt');

      const refused = await run(prefix);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^redis:copy refused: the target already holds 1 keys under test:\S+ \(pass --replace/m);
      assert.equal(refused.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn')).length, 1, refused.stderr);
      await assert.rejects(copyDeployment(single, cluster, prefix), CopyRefused);

      const dry = await run(prefix, '--replace', '--dry-run');
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(dry.stdout, new RegExp(`^string\\t-\\t${legacy} -> ${prefix}\\{ledger\\}settle:result:0xpayload`, 'm'));
      assert.match(dry.stdout, /^would copy 2 keys under \S+ \((zset 1, string 1|string 1, zset 1)\)/m);
      assert.deepEqual([...(await snapshot(cluster, prefix)).keys()], [redisKeys(prefix).cursorSecret], 'the dry run wrote nothing');

      const replaced = await run(prefix, '--replace');
      assert.equal(replaced.code, 0, replaced.stderr);
      assert.match(replaced.stdout, /^verified: the target holds 2 keys/m);
      assert.equal(await cluster.get(redisKeys(prefix).cursorSecret), null, '--replace dropped what the target held');
      assert.equal(await cluster.get(redisKeys(prefix).settleResult('0xpayload')), '4200');
      assert.deepEqual(await cluster.zrange(redisKeys(prefix).signalsDirty, 0, -1, 'WITHSCORES'), ['lst_a', '1', 'lst_b', '2']);
    });

    it('an old name whose tagged name exists too is skipped (the tagged one is copied), and said so', async () => {
      const keys = redisKeys(prefix);
      await single.set(`${prefix}settle:result:0xpayload`, '5'); // from before the tags
      await single.set(keys.settleResult('0xpayload'), '7'); // written by the new version since
      const report = await copyDeployment(single, cluster, prefix);
      assert.deepEqual(report.skipped.map((s) => s.key), [`${prefix}settle:result:0xpayload`]);
      assert.deepEqual([report.copied, report.renamed, report.verification?.problems], [1, 0, []]);
      assert.equal(await cluster.get(keys.settleResult('0xpayload')), '7');
    });

    it('keeps each key\'s remaining time to live (within the copy\'s own delay); keys without one stay without', async () => {
      const keys = redisKeys(prefix);
      await single.set(keys.lease('ranking'), 'gateway-1', 'PX', 600_000);
      await single.set(keys.settleLock('abc'), 'held', 'PX', 5_000);
      await single.set(keys.cursorSecret, 'kept-forever-secret');
      const started = Date.now();
      const report = await copyDeployment(single, cluster, prefix);
      const took = Date.now() - started;
      assert.deepEqual(report.verification?.problems, []);
      for (const key of [keys.lease('ranking'), keys.settleLock('abc')]) {
        const onSource = await single.pttl(key);
        const left = await cluster.pttl(key);
        // Not reset to the full TTL, not dropped: the source's deadline, give or take the copy's round trips.
        assert.ok(Math.abs(left - onSource) <= took + 50, `${key}: ${left} ms left on the target, ${onSource} ms on the source (the copy took ${took} ms)`);
      }
      assert.equal(await cluster.pttl(keys.cursorSecret), -1);
    });
  });
});
