/**
 * Issue 44, item 7: a seller sees its settlements by hash. Real parts: the dev chain, its test
 * USDC, the facilitator's key; each hash the view names is a mined transfer to that seller.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { parseEventLogs, erc20Abi } from 'viem';
import { startHarness, type Harness } from './support/harness.js';
import { exactRequest, NETWORK, newWallet, requirements, RESOURCE, USDC } from './support/payments.js';
import { chainClient, fundBuyer } from './support/chainFunding.js';
import { httpListingId } from '../src/catalog/identity.js';
import { SettlementLog } from '../src/store/redis/settlementLog.js';
import { redisKeys } from '../src/store/redis/redisKeys.js';

describe('settlements by hash: what a seller was paid on chain (issue 44)', function () {
  this.timeout(60_000);
  let h: Harness;

  before(async () => {
    // The harness settles on the dev chain with its facilitator key (and fails without the node).
    h = await startHarness();
  });
  after(async () => h?.close());

  it('lists a payTo\'s settlements newest first; each hash is a mined transfer of that amount from that payer to it', async () => {
    const payTo = newWallet().address;
    const buyers = [newWallet(), newWallet()];
    const hashes: string[] = [];
    for (const [i, buyer] of buyers.entries()) {
      await fundBuyer(buyer.address, 10_000n);
      const body = await exactRequest(buyer, requirements(payTo, { amount: String(1000 + i) }));
      const settled = (await request(h.app).post('/settle').send(body).expect(200)).body;
      assert.equal(settled.success, true, JSON.stringify(settled));
      hashes.push(settled.transaction);
    }
    const page = (await request(h.app).get('/settlements').query({ payTo: payTo.toUpperCase().replace('0X', '0x') }).expect(200)).body;
    assert.equal(page.payTo, payTo.toLowerCase());
    assert.deepEqual(page.settlements.map((s: { transaction: string }) => s.transaction), [...hashes].reverse());
    for (const [i, entry] of [...page.settlements].reverse().entries()) {
      assert.equal(entry.payer, buyers[i]!.address.toLowerCase());
      assert.equal(entry.amount, String(1000 + i));
      assert.equal(entry.network, NETWORK);
      assert.equal(entry.asset, USDC.toLowerCase());
      assert.equal(entry.resource, RESOURCE.url);
      assert.equal(entry.listingId, httpListingId(RESOURCE.url));
      const receipt = await chainClient.getTransactionReceipt({ hash: entry.transaction });
      assert.equal(receipt.status, 'success');
      const [transfer] = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' });
      assert.equal(transfer!.args.from.toLowerCase(), entry.payer);
      assert.equal(transfer!.args.to.toLowerCase(), payTo.toLowerCase());
      assert.equal(transfer!.args.value, BigInt(entry.amount));
    }
    const one = (await request(h.app).get(`/settlements/${hashes[0]}`).expect(200)).body;
    assert.deepEqual(one, page.settlements[1]);
    assert.equal((await request(h.app).get('/settlements').query({ payTo, limit: '1' }).expect(200)).body.settlements.length, 1);
  });

  it('a refused settlement is not listed, and another payTo sees none of them', async () => {
    const payTo = newWallet().address;
    const unfunded = await exactRequest(newWallet(), requirements(payTo));
    assert.equal((await request(h.app).post('/settle').send(unfunded).expect(200)).body.success, false);
    assert.deepEqual((await request(h.app).get('/settlements').query({ payTo }).expect(200)).body.settlements, []);
  });

  it('bad queries are problems, never a 500', async () => {
    const problem = async (path: string, query: Record<string, string>, status: number, code: string) => {
      const res = await request(h.app).get(path).query(query).expect(status);
      assert.match(res.headers['content-type'] ?? '', /application\/problem\+json/);
      assert.equal(res.body.code, code, JSON.stringify(res.body));
    };
    await problem('/settlements', {}, 400, 'invalid_filter_value');
    await problem('/settlements', { payTo: 'alice' }, 400, 'invalid_filter_value');
    await problem('/settlements', { payTo: newWallet().address, limit: '1001' }, 400, 'invalid_filter_value');
    await problem('/settlements', { payTo: newWallet().address, since: 'x' }, 400, 'unknown_filter');
    await problem(`/settlements/0x${'ab'.repeat(32)}`, {}, 404, 'not_found');
    await problem('/settlements/not-a-hash', {}, 404, 'not_found');
    await problem(`/settlements/0x${'ab'.repeat(32)}`, { x: '1' }, 400, 'unknown_filter');
  });

  it('is bounded: a payTo keeps its newest entries up to the cap, and every key expires', async () => {
    const prefix = `${h.config.redisPrefix}bound:`;
    const log = new SettlementLog(h.redis, prefix, 3, 60);
    const payTo = newWallet().address.toLowerCase();
    for (let i = 0; i < 5; i++) await log.add(`0x${String(i).repeat(64)}`, payTo, 1000 + i, JSON.stringify({ i }));
    assert.deepEqual((await log.ofPayee(payTo, 10)).map((e) => JSON.parse(e).i), [4, 3, 2]);
    const keys = redisKeys(prefix);
    const ttl = await h.redis.ttl(keys.settlementsOfPayee(payTo));
    assert.ok(ttl > 0 && ttl <= 60, `payee list ttl ${ttl}`);
    const hashTtl = await h.redis.ttl(keys.settlementByHash(`0x${'0'.repeat(64)}`));
    assert.ok(hashTtl > 0 && hashTtl <= 60, `record ttl ${hashTtl}`);
  });
});
