import assert from 'node:assert/strict';
import request from 'supertest';
import { formatEther } from 'viem';
import { startHarness, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC, uptoRequest } from './support/payments.js';
import { assertMined, chainClient, fundBuyer, sponsorWei, usdcBalance } from './support/chainFunding.js';

/** What one settlement's transaction cost its sender in gas, from its receipt. */
async function gasPaid(hash: string): Promise<bigint> {
  const receipt = await chainClient.getTransactionReceipt({ hash: hash as `0x${string}` });
  return receipt.gasUsed * receipt.effectiveGasPrice;
}

describe('facilitator: /settle on the dev chain and fee sponsorship', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  // upto still settles on the Redis test ledger (issue 44: the "upto" step moves it on chain).
  const ledgerBalance = (address: string) => h.container.facilitator.ledger.balance(NETWORK, USDC, address);

  it('moves the authorized value from payer to payTo once, in a mined transaction', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await fundBuyer(payer.address, 5000n);
    const body = await exactRequest(payer, requirements(seller.address, { amount: '1200' }));
    const res = await request(h.app).post('/settle').send(body).expect(200);
    assert.equal(res.body.success, true);
    assert.equal(res.body.payer, payer.address);
    assert.equal(res.body.network, NETWORK);
    assert.equal(res.body.amount, '1200');
    await assertMined(res.body.transaction);
    assert.equal(await usdcBalance(payer.address), 3800n);
    assert.equal(await usdcBalance(seller.address), 1200n);
  });

  it('is idempotent by payload: 20 concurrent duplicates move funds exactly once, the sponsor pays one transaction, all get the first result', async () => {
    const payer = newWallet();
    const seller = newWallet();
    await fundBuyer(payer.address, 10_000n);
    const sponsorBefore = await sponsorWei();
    const body = await exactRequest(payer, requirements(seller.address, { amount: '700' }));
    const responses = await Promise.all(Array.from({ length: 20 }, () => request(h.app).post('/settle').send(body)));
    for (const res of responses) {
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, responses[0]!.body);
    }
    assert.equal(responses[0]!.body.success, true);
    await assertMined(responses[0]!.body.transaction);
    assert.equal(await usdcBalance(payer.address), 9300n);
    assert.equal(await usdcBalance(seller.address), 700n);
    assert.equal(await sponsorWei(), sponsorBefore - (await gasPaid(responses[0]!.body.transaction)));
    // A later repeat (keys in another order: same payload) still returns the first result.
    const reversed = (v: unknown): unknown =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)]))
        : v;
    const reordered = reversed(body) as object;
    assert.notEqual(JSON.stringify(reordered), JSON.stringify(body));
    const later = await request(h.app).post('/settle').send(reordered).expect(200);
    assert.deepEqual(later.body, responses[0]!.body);
    assert.equal(await usdcBalance(payer.address), 9300n);
  });

  it('a failed settlement moves nothing and can be retried once the wallet is funded', async () => {
    const payer = newWallet();
    const seller = newWallet();
    const body = await exactRequest(payer, requirements(seller.address, { amount: '500' }));
    const sponsorBefore = await sponsorWei();
    const failed = await request(h.app).post('/settle').send(body).expect(200);
    assert.equal(failed.body.success, false);
    assert.equal(failed.body.errorReason, 'invalid_exact_evm_insufficient_balance');
    assert.equal(failed.body.transaction, '');
    assert.equal(await sponsorWei(), sponsorBefore, 'nothing was sent');
    await fundBuyer(payer.address, 500n);
    const ok = await request(h.app).post('/settle').send(body).expect(200);
    assert.equal(ok.body.success, true);
    await assertMined(ok.body.transaction);
    assert.equal(await usdcBalance(seller.address), 500n);
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
    assert.equal(await ledgerBalance(payer.address), 8766n);
    assert.equal(await ledgerBalance(seller.address), 1234n);
  });

  it('upto refuses to settle more than the ceiling', async () => {
    const payer = newWallet();
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 10_000n);
    const body = await uptoRequest(payer, requirements(newWallet().address, { amount: '100' }));
    const over = { ...body, paymentRequirements: { ...body.paymentRequirements, amount: '101' } };
    const res = await request(h.app).post('/settle').send(over).expect(200);
    assert.equal(res.body.success, false);
    assert.equal(res.body.errorReason, 'invalid_upto_evm_payload_settlement_exceeds_amount');
    assert.equal(await ledgerBalance(payer.address), 10_000n);
  });

  it('/metrics: the sponsor balance read from the chain in ETH, requests per route pattern, verify/settle outcomes, ingest queue', async () => {
    await request(h.app).post('/verify').send(await exactRequest(newWallet(), requirements(newWallet().address))).expect(200);
    const sponsor = await sponsorWei();
    const res = await request(h.app).get('/metrics').expect(200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.text;
    const sponsorLine = text.split('\n').find((l) => l.startsWith('facilitator_sponsor_balance_eth{network="eip155:84532"}'));
    assert.ok(sponsorLine, 'sponsor balance gauge present');
    assert.equal(Number(sponsorLine.split(' ')[1]), Number(formatEther(sponsor)));
    assert.match(text, /facilitator_sponsor_below_floor\{network="eip155:84532"\} 0/);
    assert.match(text, /facilitator_sponsor_floor_eth 0.01/);
    assert.match(text, /http_requests_total\{method="POST",route="\/settle",status="200"\} \d+/);
    assert.match(text, /http_request_duration_seconds_bucket\{le="0.005",method="POST",route="\/verify"\}/);
    assert.match(text, /facilitator_verify_total\{scheme="exact",network="eip155:84532",outcome="invalid",reason="invalid_exact_evm_insufficient_balance"\} 1/);
    assert.match(text, /facilitator_settle_total\{scheme="exact",network="eip155:84532",outcome="replayed",reason=""\} \d+/);
    assert.match(text, /catalog_ingest_queue_depth \d+/);
    assert.match(text, /catalog_ingest_dead_letters \d+/);
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
