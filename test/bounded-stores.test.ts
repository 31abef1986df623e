/**
 * Issue 43, item 4: every store of untrusted input is bounded. An origin whose /.well-known/x402 is
 * 500 KB of junk entries is answered and stored in under 64 KiB (counts and a sample of ten); a
 * Redis at its maxmemory (noeviction) refuses writes, which the service answers 503, while what it
 * holds (a seller token, used nonces) stays; /readyz says how full Redis is.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { Redis } from 'ioredis';
import { redisKeys } from '../src/store/redis/redisKeys.js';
import { startHarness, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { hasRedisServer, startPrivateRedis, type PrivateRedis } from './support/privateRedis.js';
import { answers, startServer, v1Challenge, type LocalServer } from './support/sellers.js';
import { fundBuyer } from './support/chainFunding.js';

const KIB = 1024;

describe('bounded stores of untrusted input (issue 43, item 4)', function () {
  this.timeout(60_000);

  describe('an origin announce of a 500 KB junk manifest', () => {
    let h: Harness;
    let site: LocalServer;
    const junk = JSON.stringify({ x402Version: 2, items: Array.from({ length: 250_000 }, () => 1) });

    before(async () => {
      site = await startServer({
        '/.well-known/x402': (_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end(junk),
        '/openapi.json': answers.status(404),
      });
      h = await startHarness({ PROBE_ALLOW: `127.0.0.1:${site.port}`, RATE_LIMIT_ANNOUNCE: 'off' });
    });
    after(async () => {
      await h?.close();
      await site?.close();
    });

    it('is answered and stored in under 64 KiB: every entry counted, ten kept to show why', async () => {
      assert.ok(junk.length >= 500_000, `${junk.length} bytes`);
      const res = await request(h.app).post('/discovery/announce').send({ origin: site.url('') }).expect(202);
      const answered = Buffer.byteLength(JSON.stringify(res.body));
      assert.ok(answered < 64 * KIB, `answered ${answered} bytes`);
      assert.equal(res.body.counts.skipped, 250_000);
      assert.equal(res.body.resources.length, 10);
      assert.equal(res.body.omitted, 250_000 - 10);
      assert.ok(res.body.resources.every((r: { outcome: string; reason: string }) => r.outcome === 'skipped' && r.reason === 'not an object'));
      const stored = await h.redis.strlen(redisKeys(h.config.redisPrefix).reachOrigin(res.body.origin));
      assert.ok(stored > 0 && stored < 64 * KIB, `stored ${stored} bytes`);
      const status = await request(h.app).get('/discovery/announce/status').query({ origin: site.url('') }).expect(200);
      assert.ok(Buffer.byteLength(JSON.stringify(status.body)) < 64 * KIB);
      assert.equal(status.body.counts.skipped, 250_000);
    });

    it('named resources past MANIFEST_MAX_RESOURCES are counted, not kept', async () => {
      const many = JSON.stringify({ version: 1, resources: Array.from({ length: 5000 }, (_, i) => `/paid/${i}`) });
      site.route('/.well-known/x402', (_req, res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end(many));
      const res = await request(h.app).post('/discovery/announce').send({ origin: site.url('') }).expect(202);
      assert.equal(res.body.counts.queued, 100);
      assert.equal(res.body.counts.skipped, 4900);
      assert.equal(res.body.resources.length, 110);
      assert.equal(res.body.omitted, 4890);
      assert.ok(Buffer.byteLength(JSON.stringify(res.body)) < 64 * KIB);
    });

    it('/readyz reports a Redis without maxmemory (the shared test Redis has none)', async () => {
      const res = await request(h.app).get('/readyz').expect(200);
      assert.equal(res.body.redisMemory.state, 'no_limit');
    });
  });

  (hasRedisServer ? describe : describe.skip)('a Redis at its maxmemory, noeviction (a private redis-server)', () => {
    let redis: PrivateRedis;
    let h: Harness;
    let seller: LocalServer;

    before(async () => {
      redis = await startPrivateRedis(['--maxmemory', '64mb', '--maxmemory-policy', 'noeviction']);
      seller = await startServer({ '/paid': answers.v1(() => v1Challenge(seller.url('/paid'))) });
      h = await startHarness({ REDIS_URL: redis.url, PROBE_ALLOW: `127.0.0.1:${seller.port}`, RATE_LIMIT_ANNOUNCE: 'off', RATE_LIMIT_PUBLISH: 'off' });
    });
    after(async () => {
      await h?.close().catch(() => undefined);
      await seller?.close();
      await redis?.close();
    });

    it('writes are refused with 503 and nothing held is evicted; /readyz says it is near the limit', async () => {
      assert.equal((await request(h.app).get('/readyz').expect(200)).body.redisMemory.state, 'ok');
      const token = await h.container.publishing.tokens.issue(['tools.example']);
      const payer = newWallet();
      await fundBuyer(payer.address, 100_000n);
      const settled = await exactRequest(payer, requirements(newWallet().address));
      assert.equal((await request(h.app).post('/settle').send(settled).expect(200)).body.success, true);

      // Fill it past the limit from outside the service, as many distinct origins' records would:
      // 4 MB of keys, then the limit set just under what it holds (the test owns this Redis; the
      // service never reconfigures one).
      const filler = new Redis(redis.url);
      for (let i = 0; i < 16; i += 1) await filler.set(`filler:${i}`, 'x'.repeat(256 * KIB));
      const used = Number(/^used_memory:(\d+)/m.exec(await filler.info('memory'))![1]);
      await filler.config('SET', 'maxmemory', String(used - 2048 * KIB));
      await filler.quit();

      const ready = await request(h.app).get('/readyz').expect(200);
      assert.equal(ready.body.redisMemory.state, 'near_limit');
      assert.ok(ready.body.redisMemory.usedBytes >= ready.body.redisMemory.maxBytes * 0.9);

      const announced = await request(h.app).post('/discovery/announce').send({ resource: seller.url('/paid') });
      assert.equal(announced.status, 503, JSON.stringify(announced.body));
      assert.ok(announced.headers['retry-after']);
      const settle = await request(h.app).post('/settle').send(await exactRequest(payer, requirements(newWallet().address)));
      assert.equal(settle.status, 503, JSON.stringify(settle.body));
      const publish = await request(h.app)
        .post('/discovery/publish')
        .set('Authorization', `Bearer ${token.secret}`)
        .send({ type: 'mcp', resource: 'mcp://tools.example/t', name: 't', description: 'a tool', inputSchema: { type: 'object' }, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1' } });
      // The token is still there (authenticated): only the write was refused.
      assert.equal(publish.status, 503, JSON.stringify(publish.body));
      assert.match(String(publish.headers['content-type']), /problem\+json/);
      // Room again (the operator deletes or raises the limit): nothing the service held was
      // evicted, the used nonce still refuses the replay, and writes work.
      const cleaner = new Redis(redis.url);
      await cleaner.del(...Array.from({ length: 16 }, (_, i) => `filler:${i}`));
      await cleaner.quit();
      const replay = await request(h.app).post('/verify').send(settled).expect(200);
      assert.equal(replay.body.invalidReason, 'invalid_exact_evm_nonce_already_used');
      await request(h.app).post('/discovery/announce').send({ resource: seller.url('/paid') }).expect(202);
      assert.equal((await request(h.app).get('/readyz').expect(200)).body.redisMemory.state, 'ok');
    });
  });
});
