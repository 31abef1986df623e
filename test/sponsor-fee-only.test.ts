/**
 * The sponsor ledger's fee-only record (store/redis/sponsorLedger.ts) on the real Redis: a
 * settlement whose transaction was mined and reverted cost the sponsor its gas, so the payer's and
 * payee's daily budgets are charged it, and nothing else: no value moved, so no funder edge, and a
 * payment back the other way is no circle.
 */
import assert from 'node:assert/strict';
import { SponsorLedger } from '../src/store/redis/sponsorLedger.js';
import { createRedisClient, type RedisClient } from '../src/store/redis/client.js';
import { testConfig } from './support/harness.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';

describe('sponsor ledger: a reverted settlement charges its gas only', () => {
  const config = testConfig();
  let redis: RedisClient;
  before(() => {
    redis = createRedisClient(config.redisUrl);
  });
  after(async () => {
    const keys = await redis.keys(`${config.redisPrefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  const day = 20_000;
  const now = day * 86_400_000 + 1000;
  const check = (ledger: SponsorLedger, payer: string, payee: string, budget: bigint) =>
    ledger.check({ payer, payee, day, now, windowMs: 3_600_000, feeWei: 10n, payerBudgetWei: budget, payeeBudgetWei: 10n ** 18n, circularAllowance: 0, reserve: false });

  it('the fee counts against both budgets, expires with the day sets, and leaves no funder edge', async () => {
    const ledger = new SponsorLedger(redis, config.redisPrefix);
    const [a, b] = ['0xAAaa000000000000000000000000000000000001', '0xbbBB000000000000000000000000000000000002'];
    await ledger.recordFee({ payer: a, payee: b, day, feeWei: 95n });
    assert.deepEqual(await ledger.top('payer', day, 5), [{ address: a.toLowerCase(), wei: 95 }]);
    assert.deepEqual(await ledger.top('payee', day, 5), [{ address: b.toLowerCase(), wei: 95 }]);
    assert.equal((await check(ledger, a, b, 100n)).verdict, 'payer_budget');
    assert.equal((await check(ledger, a, b, 105n)).verdict, 'ok');
    const keys = redisKeys(config.redisPrefix);
    assert.ok((await redis.ttl(keys.sponsorSpent('payer', day))) > 86_400);
    // b -> a would return value to a wallet that paid b, had anything moved: a reverted transfer moved nothing.
    assert.deepEqual(await check(ledger, b, a, 10n ** 18n), { verdict: 'ok', circular: false });
    assert.equal(await redis.exists(keys.sponsorFunders(b.toLowerCase())), 0);
    // A payment that did move records the edge: the same check is then circular (the contrast that shows the test can fail).
    await ledger.record({ payer: a, payee: b, day, now, windowMs: 3_600_000, feeWei: 1n, circular: false });
    assert.equal((await check(ledger, b, a, 10n ** 18n)).circular, true);
  });
});
