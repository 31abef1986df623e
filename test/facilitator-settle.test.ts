import assert from 'node:assert/strict';
import request from 'supertest';
import { startHarness, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC, uptoRequest } from './support/payments.js';

const FEE = 21_000_000_000_000n;

describe('facilitator: /settle, the ledger and fee sponsorship', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ SETTLEMENT_FEE_WEI: FEE.toString(), SPONSOR_INITIAL_WEI: '1000000000000000000' });
  });
  after(async () => h.close());

  const balance = (address: string) => h.container.facilitator.ledger.balance(NETWORK, USDC, address);

  it('moves the authorized value from payer to payTo once, with a well-formed transaction hash', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 5000n);
    const body = await exactRequest(payer, requirements(seller.address, { amount: '1200' }));
    const res = await request(h.app).post('/settle').send(body).expect(200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.payer, payer.address);
    assert.equal(res.body.network, NETWORK);
    assert.equal(res.body.amount, '1200');
    assert.match(res.body.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(await balance(payer.address), 3800n);
    assert.equal(await balance(seller.address), 1200n);
  });

  it('is idempotent by payload: 20 concurrent duplicates move funds exactly once and all get the first result', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 10_000n);
    const sponsorBefore = await h.container.facilitator.ledger.sponsorBalance(NETWORK);
    const body = await exactRequest(payer, requirements(seller.address, { amount: '700' }));
    const responses = await Promise.all(Array.from({ length: 20 }, () => request(h.app).post('/settle').send(body)));
    for (const res of responses) {
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, responses[0]!.body);
    }
    assert.equal(responses[0]!.body.success, true);
    assert.equal(await balance(payer.address), 9300n);
    assert.equal(await balance(seller.address), 700n);
    assert.equal(await h.container.facilitator.ledger.sponsorBalance(NETWORK), sponsorBefore - FEE);
    // A later repeat (keys in another order: same payload) still returns the first result.
    const reversed = (v: unknown): unknown =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)]))
        : v;
    const reordered = reversed(body) as object;
    assert.notEqual(JSON.stringify(reordered), JSON.stringify(body));
    const later = await request(h.app).post('/settle').send(reordered).expect(200);
    assert.deepEqual(later.body, responses[0]!.body);
    assert.equal(await balance(payer.address), 9300n);
  });

  it('a failed settlement moves nothing and can be retried once the wallet is funded', async () => {
    const payer = newWallet();
    const seller = newWallet();
    const body = await exactRequest(payer, requirements(seller.address, { amount: '500' }));
    const failed = await request(h.app).post('/settle').send(body).expect(200);
    assert.equal(failed.body.success, false);
    assert.equal(failed.body.errorReason, 'invalid_exact_evm_insufficient_balance');
    assert.equal(failed.body.transaction, '');
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 500n);
    const ok = await request(h.app).post('/settle').send(body).expect(200);
    assert.equal(ok.body.success, true);
    assert.equal(await balance(seller.address), 500n);
  });

  it('upto settles the actual amount (at most the ceiling) and reports it in amount', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 10_000n);
    const body = await uptoRequest(payer, requirements(seller.address, { amount: '5000' }));
    assert.equal((await request(h.app).post('/verify').send(body).expect(200)).body.isValid, true);
    // The seller settles what was used: 1234 of the 5000 ceiling.
    const actual = { ...body, paymentRequirements: { ...body.paymentRequirements, amount: '1234' } };
    const res = await request(h.app).post('/settle').send(actual).expect(200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.amount, '1234');
    assert.equal(await balance(payer.address), 8766n);
    assert.equal(await balance(seller.address), 1234n);
  });

  it('upto refuses to settle more than the ceiling', async () => {
    const payer = newWallet();
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 10_000n);
    const body = await uptoRequest(payer, requirements(newWallet().address, { amount: '100' }));
    const over = { ...body, paymentRequirements: { ...body.paymentRequirements, amount: '101' } };
    const res = await request(h.app).post('/settle').send(over).expect(200);
    assert.equal(res.body.success, false);
    assert.equal(res.body.errorReason, 'invalid_upto_evm_payload_settlement_exceeds_amount');
    assert.equal(await balance(payer.address), 10_000n);
  });

  it('/metrics: sponsor balance in ETH, requests per route pattern, verify/settle outcomes, ingest queue', async () => {
    const sponsorWei = await h.container.facilitator.ledger.sponsorBalance(NETWORK);
    await request(h.app).post('/verify').send(await exactRequest(newWallet(), requirements(newWallet().address))).expect(200);
    const res = await request(h.app).get('/metrics').expect(200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.text;
    const sponsorLine = text.split('\n').find((l) => l.startsWith('facilitator_sponsor_balance_eth{network="eip155:84532"}'));
    assert.ok(sponsorLine, 'sponsor balance gauge present');
    assert.equal(Number(sponsorLine.split(' ')[1]), Number(sponsorWei) / 1e18);
    assert.ok(Number(sponsorLine.split(' ')[1]) < 1 && Number(sponsorLine.split(' ')[1]) > 0.99);
    assert.match(text, /facilitator_sponsor_below_floor\{network="eip155:84532"\} 0/);
    assert.match(text, /facilitator_sponsor_floor_eth 0.01/);
    assert.match(text, /http_requests_total\{method="POST",route="\/settle",status="200"\} \d+/);
    assert.match(text, /http_request_duration_seconds_bucket\{le="0.005",method="POST",route="\/verify"\}/);
    assert.match(text, /facilitator_verify_total\{scheme="exact",network="eip155:84532",outcome="invalid",reason="invalid_exact_evm_insufficient_balance"\} 1/);
    assert.match(text, /facilitator_settle_total\{scheme="exact",network="eip155:84532",outcome="replayed",reason=""\} \d+/);
    assert.match(text, /catalog_ingest_queue_depth \d+/);
    assert.match(text, /catalog_ingest_dead_letters \d+/);
  });

  it('the sponsor pays every fee and settlement stops when it cannot', async () => {
    const poor = await startHarness({ SETTLEMENT_FEE_WEI: '10', SPONSOR_INITIAL_WEI: '15' });
    try {
      const payer = newWallet();
      await poor.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 10_000n);
      const first = await request(poor.app).post('/settle').send(await exactRequest(payer, requirements(newWallet().address)));
      assert.equal(first.body.success, true);
      const next = await exactRequest(payer, requirements(newWallet().address));
      // /verify already says so, naming the sponsor (not the payer, not an unexpected error).
      assert.equal((await request(poor.app).post('/verify').send(next)).body.invalidReason, 'sponsor_insufficient_funds');
      const second = await request(poor.app).post('/settle').send(next);
      assert.equal(second.body.success, false);
      assert.equal(second.body.errorReason, 'sponsor_insufficient_funds');
      assert.match(second.body.errorMessage, /sponsor/);
      // The floor alert: 5 wei left is below the default floor.
      const metrics = (await request(poor.app).get('/metrics').expect(200)).text;
      assert.match(metrics, /facilitator_sponsor_below_floor\{network="eip155:84532"\} 1/);
      assert.equal(await poor.container.facilitator.ledger.balance(NETWORK, USDC, payer.address), 9000n);
      await poor.container.facilitator.ledger.fundSponsor(NETWORK, 100n);
      assert.equal(await poor.container.facilitator.ledger.sponsorBalance(NETWORK), 105n);
    } finally {
      await poor.close();
    }
  });
});

describe('facilitator: without Redis', function () {
  // The whole app is imported and built here, and the write consumer's stop waits out the dead
  // Redis: 20-25 s on a loaded machine, well over mocha's default.
  this.timeout(60_000);
  it('/verify and /settle answer 503 facilitator_unavailable, /supported still answers', async () => {
    const { createApp } = await import('../src/app.js');
    const { buildContainer } = await import('../src/container.js');
    const { createLogger } = await import('../src/logger.js');
    const { createElasticsearchClient } = await import('../src/store/elasticsearch/client.js');
    const { createRedisClient } = await import('../src/store/redis/client.js');
    const { testConfig } = await import('./support/harness.js');
    const config = testConfig({ REDIS_URL: 'redis://127.0.0.1:1' });
    const logger = createLogger('error', { silent: true });
    const redis = createRedisClient(config.redisUrl, { lazyConnect: true });
    redis.on('error', () => {});
    const elasticsearch = createElasticsearchClient(config.elasticsearchUrl);
    const container = buildContainer(config, logger, { elasticsearch, redis });
    const app = createApp({ config, logger, elasticsearch, redis, routers: container.routers });
    try {
      const body = await exactRequest(newWallet(), requirements(newWallet().address));
      for (const path of ['/verify', '/settle']) {
        const res = await request(app).post(path).send(body).expect(503);
        assert.equal(res.body.code, 'facilitator_unavailable');
        assert.ok(res.headers['retry-after']);
      }
      await request(app).get('/supported').expect(200);
    } finally {
      await Promise.all(container.workers.map((w) => w.stop()));
      redis.disconnect();
      await elasticsearch.close();
    }
  });
});
