import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { ConfigError, loadConfig } from '../src/config/index.js';
import { createLogger } from '../src/logger.js';
import { errorHandler, requestContext } from '../src/http/middleware.js';
import { bearerTokenKey, rateLimit } from '../src/http/rateLimit.js';
import { createRedisClient, scanKeys } from '../src/store/redis/client.js';
import { RateLimitCounter } from '../src/store/redis/rateLimitCounter.js';
import { startHarness, type Harness } from './support/harness.js';

const silent = createLogger('error', { silent: true });

describe('rate limits (Redis, 429 rate_limited with Retry-After)', function () {
  this.timeout(20_000);
  let h: Harness;

  before(async () => {
    // Clients are told apart by X-Forwarded-For, as behind a proxy on loopback (TRUST_PROXY).
    h = await startHarness({ RATE_LIMIT_ANNOUNCE: '3/1m', RATE_LIMIT_PUBLISH: '2/1m', PROBE_ALLOW: '', TRUST_PROXY: 'loopback' });
  });
  after(async () => h?.close());

  it('announce: per client address; the 4th in a minute is refused with Retry-After', async () => {
    const client = '203.0.113.7';
    for (let i = 0; i < 3; i += 1) {
      const res = await request(h.app).post('/discovery/announce').set('X-Forwarded-For', client).send({ resource: `https://seller.example.com/r${i}` }).expect(202);
      assert.equal(res.headers['ratelimit-limit'], '3');
      assert.equal(res.headers['ratelimit-remaining'], String(2 - i));
    }
    const refused = await request(h.app).post('/discovery/announce').set('X-Forwarded-For', client).send({ resource: 'https://seller.example.com/r9' }).expect(429);
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    assert.equal(refused.body.code, 'rate_limited');
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers['retry-after']}`);
    // Another client has its own budget.
    await request(h.app).post('/discovery/announce').set('X-Forwarded-For', '198.51.100.9').send({ resource: 'https://seller.example.com/other' }).expect(202);
  });

  it('IPv6 clients are counted per /64, so rotating addresses inside one prefix does not help', async () => {
    const send = (client: string, n: number) =>
      request(h.app).post('/discovery/announce').set('X-Forwarded-For', client).send({ resource: `https://seller.example.com/v6-${n}` });
    for (const [i, client] of ['2001:db8:1:2::1', '2001:db8:1:2::99', '2001:db8:1:2:ffff::7'].entries()) {
      assert.equal((await send(client, i)).status, 202);
    }
    assert.equal((await send('2001:0db8:0001:0002::abcd', 9)).status, 429);
    assert.equal((await send('2001:db8:1:3::1', 10)).status, 202);
  });

  it('publish: per client address at the edge, before authentication', async () => {
    const client = '203.0.113.8';
    for (let i = 0; i < 2; i += 1) {
      const res = await request(h.app).post('/discovery/publish').set('X-Forwarded-For', client).send({});
      assert.notEqual(res.status, 429);
    }
    const refused = await request(h.app).post('/discovery/publish').set('X-Forwarded-For', client).send({}).expect(429);
    assert.equal(refused.body.code, 'rate_limited');
    assert.ok(refused.headers['retry-after']);
  });

  it('reads are not limited unless the operator enables it', async () => {
    for (let i = 0; i < 30; i += 1) {
      const res = await request(h.app).get('/discovery/resources');
      assert.notEqual(res.status, 429);
      assert.equal(res.headers['ratelimit-limit'], undefined);
    }
  });

  it('reads are counted per read: each call of a JSON-RPC batch on /mcp and each 100 changes of a feed page (issue 43, item 8)', async () => {
    const reads = await startHarness({ RATE_LIMIT_READS: '20/1m', TRUST_PROXY: 'loopback' });
    try {
      const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_resources', arguments: { q: 'weather' } } });
      const mcp = (client: string, body: unknown) =>
        request(reads.app).post('/mcp').set('X-Forwarded-For', client).set('Accept', 'application/json, text/event-stream').send(body as object);
      // A batch of 100 calls was one count: now it spends 100 of the 20 and is refused whole.
      const batch = await mcp('203.0.113.40', Array.from({ length: 100 }, (_, i) => call(i + 1)));
      assert.equal(batch.status, 429, JSON.stringify(batch.body).slice(0, 200));
      // A batch of 5 spends 5: three of them and the budget is down to 5.
      for (let i = 0; i < 3; i += 1) assert.notEqual((await mcp('203.0.113.41', Array.from({ length: 5 }, (_, k) => call(k + 1)))).status, 429);
      const after = await mcp('203.0.113.41', call(1));
      assert.equal(after.headers['ratelimit-remaining'], '4');
      // A change-feed page of 1,000 is ten reads; of the default 100, one.
      const client = '203.0.113.42';
      const page = await request(reads.app).get('/discovery/changes').set('X-Forwarded-For', client).query({ limit: '1000' });
      assert.notEqual(page.status, 429);
      assert.equal(page.headers['ratelimit-remaining'], '10');
      await request(reads.app).get('/discovery/changes').set('X-Forwarded-For', client).expect((res) => assert.equal(res.headers['ratelimit-remaining'], '9'));
      const refused = await request(reads.app).get('/discovery/changes').set('X-Forwarded-For', client).query({ limit: '1000' }).expect(429);
      assert.equal(refused.body.code, 'rate_limited');
    } finally {
      await reads.close();
    }
  });

  it('RATE_LIMIT_READS applies to /discovery/search, /discovery/resources and /mcp/tools', async () => {
    const reads = await startHarness({ RATE_LIMIT_READS: '2/1m' });
    try {
      await request(reads.app).get('/discovery/resources').expect(200);
      await request(reads.app).get('/discovery/search').query({ q: 'weather' }).expect(200);
      const refused = await request(reads.app).get('/mcp/tools').query({ q: 'weather' }).expect(429);
      assert.equal(refused.body.code, 'rate_limited');
    } finally {
      await reads.close();
    }
  });

  it('RATE_LIMIT_READS applies to the merchant view: a page of listings plus an aggregation', async () => {
    const reads = await startHarness({ RATE_LIMIT_READS: '2/1m' });
    try {
      const payTo = `0x${'ef'.repeat(20)}`;
      await request(reads.app).get('/discovery/merchant').query({ payTo }).expect(404);
      await request(reads.app).get('/discovery/merchant').query({ payTo }).expect(404);
      const refused = await request(reads.app).get('/discovery/merchant').query({ payTo }).expect(429);
      assert.equal(refused.body.code, 'rate_limited');
    } finally {
      await reads.close();
    }
  });

  it('RATE_LIMIT_READS applies to a seller\'s settlements too: a page of 1000 spends 10 reads', async () => {
    const reads = await startHarness({ RATE_LIMIT_READS: '11/1m' });
    try {
      const payTo = `0x${'ab'.repeat(20)}`;
      await request(reads.app).get('/settlements').query({ payTo, limit: '1000' }).expect(200);
      await request(reads.app).get(`/settlements/0x${'cd'.repeat(32)}`).expect(404);
      const refused = await request(reads.app).get('/settlements').query({ payTo }).expect(429);
      assert.equal(refused.body.code, 'rate_limited');
    } finally {
      await reads.close();
    }
  });

  describe('the middleware', () => {
    function appWith(limiter: express.RequestHandler): express.Express {
      const app = express();
      app.use(requestContext(silent));
      app.get('/limited', limiter, (_req, res) => void res.json({ ok: true }));
      app.use(errorHandler());
      return app;
    }

    it('keys by bearer token when given a key function (per-token budgets)', async () => {
      const app = appWith(rateLimit({ counter: new RateLimitCounter(h.redis, h.config.redisPrefix), name: 'token-test', rule: { limit: 1, windowMs: 60_000 }, logger: silent, key: bearerTokenKey }));
      await request(app).get('/limited').set('Authorization', 'Bearer token-a').expect(200);
      await request(app).get('/limited').set('Authorization', 'Bearer token-a').expect(429);
      await request(app).get('/limited').set('Authorization', 'Bearer token-b').expect(200);
      // No token: nothing to key by, so this limiter lets it through (the per-address one still applies).
      await request(app).get('/limited').expect(200);
      const keys: string[] = [];
      await scanKeys(h.redis, `${h.config.redisPrefix}ratelimit:token-test:*`, async (batch) => void keys.push(...batch));
      assert.ok(keys.length >= 2);
      assert.ok(keys.every((k) => !k.includes('token-a')), 'raw tokens never appear in Redis keys');
    });

    it('the window resets: a fresh window has a fresh budget (injectable clock)', async () => {
      let now = Date.parse('2026-01-01T00:00:10Z');
      const app = appWith(rateLimit({ counter: new RateLimitCounter(h.redis, h.config.redisPrefix), name: 'clock-test', rule: { limit: 1, windowMs: 60_000 }, logger: silent, now: () => now }));
      await request(app).get('/limited').expect(200);
      const refused = await request(app).get('/limited').expect(429);
      assert.equal(refused.headers['retry-after'], '50');
      now += 60_000;
      await request(app).get('/limited').expect(200);
    });

    it('fails open when Redis is down: requests go through', async () => {
      const down = createRedisClient('redis://127.0.0.1:1', { lazyConnect: true });
      down.on('error', () => {});
      try {
        const app = appWith(rateLimit({ counter: new RateLimitCounter(down, 'x:'), name: 'down', rule: { limit: 1, windowMs: 60_000 }, logger: silent, timeoutMs: 200 }));
        for (let i = 0; i < 3; i += 1) await request(app).get('/limited').expect(200);
      } finally {
        down.disconnect();
      }
    });
  });

  it('configuration: a malformed rule is reported by name', () => {
    assert.throws(() => loadConfig({ RATE_LIMIT_ANNOUNCE: 'lots', RATE_LIMIT_READS: '5/0s' }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /RATE_LIMIT_ANNOUNCE="lots": must be "off" or <requests>\/<window>/);
      assert.match(err.message, /RATE_LIMIT_READS="5\/0s": the window must be between/);
      return true;
    });
    const config = loadConfig({ RATE_LIMIT_READS: '100/30s', RATE_LIMIT_PUBLISH: 'off' });
    assert.deepEqual(config.rateLimits.reads, { limit: 100, windowMs: 30_000 });
    assert.equal(config.rateLimits.publish, undefined);
    assert.deepEqual(config.rateLimits.announce, { limit: 600, windowMs: 60_000 });
  });
});
