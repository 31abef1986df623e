/**
 * Issue 9: what one payer or one client can do to the facilitator and to a listing's signals
 * (docs/facilitator.md "Rate limits" and "Signals").
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { fundBuyer } from './support/chainFunding.js';

describe('facilitator: per-payer budget and payer-bounded signals', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ RATE_LIMIT_FACILITATOR: 'off', RATE_LIMIT_FACILITATOR_PAYER: '3/1h', SIGNALS_PAYER_DAILY_CAP: '2' });
  });
  after(async () => h.close());

  const fund = (address: string) => fundBuyer(address, 100_000n);
  const signals = async (id: string) => (await h.container.signals.counters.read([id])).get(id)!;
  /** Lists `url` paid to `payTo`: payments count only for the listing whose seller they paid (issue 43). */
  const list = async (url: string, payTo: string) => {
    const { id } = await h.container.catalog.writer.upsert({ type: 'http', resource: url, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo } }, { source: 'import' });
    await waitFor(async () => h.container.catalog.reader.get(id));
  };

  it('a payer gets 3 distinct payments per window; replays and payloads merely claiming its address spend nothing', async () => {
    const payer = newWallet();
    await fund(payer.address);
    const req = requirements(newWallet().address);
    // Forged payloads that claim the payer: refused on the signature, before the budget is counted.
    for (let i = 0; i < 5; i += 1) {
      const forged = await request(h.app).post('/verify').send(await exactRequest(payer, req, { signer: newWallet() })).expect(200);
      assert.equal(forged.body.invalidReason, 'invalid_exact_evm_signature');
    }
    const first = await exactRequest(payer, req);
    for (let i = 0; i < 3; i += 1) assert.equal((await request(h.app).post('/verify').send(first).expect(200)).body.isValid, true, 'a replay is the same payment');
    for (let i = 0; i < 2; i += 1) assert.equal((await request(h.app).post('/verify').send(await exactRequest(payer, req)).expect(200)).body.isValid, true);
    const refused = await request(h.app).post('/verify').send(await exactRequest(payer, req)).expect(429);
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    assert.equal(refused.body.code, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // /settle has its own budget; another payer is not affected.
    assert.equal((await request(h.app).post('/settle').send(first).expect(200)).body.success, true);
    const other = newWallet();
    await fund(other.address);
    assert.equal((await request(h.app).post('/verify').send(await exactRequest(other, req)).expect(200)).body.isValid, true);
  });

  it('one payer counts at most the daily cap of settlements per listing; lastSettled still moves', async () => {
    const payer = newWallet();
    await fund(payer.address);
    const seller = newWallet().address;
    const resource = { url: 'https://capped.example/api', description: 'Capped', mimeType: '' };
    const id = httpListingId(resource.url);
    await list(resource.url, seller);
    let last = '';
    for (let i = 0; i < 3; i += 1) {
      const res = await request(h.app).post('/settle').send(await exactRequest(payer, requirements(seller), {}, resource)).expect(200);
      assert.equal(res.body.success, true);
      const previous = last;
      // lastSettled follows every settlement (counting runs beside the answer, so wait for it).
      last = (await waitFor(async () => {
        const now = await signals(id);
        return now.lastSettled && now.lastSettled > previous ? now.lastSettled : undefined;
      }))!;
      await new Promise((r) => setTimeout(r, 2)); // the next settlement's time must differ
    }
    assert.equal((await signals(id)).settleCount7d, 2);
    const second = newWallet();
    await fund(second.address);
    assert.equal((await request(h.app).post('/settle').send(await exactRequest(second, requirements(seller), {}, resource)).expect(200)).body.success, true);
    await waitFor(async () => (await signals(id)).settleCount7d === 3); // a distinct payer counts
  });

  it('rejections count only from a funded wallet that signed them, at most the daily cap per payer', async () => {
    const resource = { url: 'https://competitor.example/api', description: 'Sunk?', mimeType: '' };
    const id = httpListingId(resource.url);
    const req = requirements(newWallet().address);
    await list(resource.url, req.payTo);
    const verify = async (body: unknown) => (await request(h.app).post('/verify').send(body as object).expect(200)).body;
    const funded = newWallet();
    await fund(funded.address);
    // Whether a refusal's payer could have paid is still read from the Redis test ledger when the
    // refusal came before any chain read (src/facilitator/service.ts observeVerify): funded there
    // too until that reads the chain (issue 44).
    await h.container.facilitator.ledger.fund(NETWORK, USDC, funded.address, 100_000n);
    // Junk: fresh unfunded wallets signing too little, and forgeries claiming a funded wallet.
    for (let i = 0; i < 5; i += 1) {
      assert.equal((await verify(await exactRequest(newWallet(), req, { value: '1' }, resource))).isValid, false);
      assert.equal((await verify(await exactRequest(funded, req, { signer: newWallet() }, resource))).isValid, false);
    }
    // A funded wallet's own refused payment counts, at most the cap per day; a good one from a buyer too.
    for (let i = 0; i < 4; i += 1) assert.equal((await verify(await exactRequest(funded, req, { value: '1' }, resource))).isValid, false);
    const buyer = newWallet();
    await fund(buyer.address);
    assert.equal((await verify(await exactRequest(buyer, req, {}, resource))).isValid, true);
    // 2 capped rejections of 3 counted verifications; had the 10 junk ones counted, it would be 12/13.
    await waitFor(async () => (await signals(id)).rejectionRate7d === 0.6667);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await signals(id), { settleCount7d: 0, rejectionRate7d: 0.6667 });
  });
});

describe('facilitator: per-client limit on /verify and /settle', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ RATE_LIMIT_FACILITATOR: '3/1h' });
  });
  after(async () => h.close());

  it('each route has its own budget per client address, /x402 included; the 4th request is 429 with Retry-After', async () => {
    const body = await exactRequest(newWallet(), requirements(newWallet().address));
    for (const path of ['/verify', '/settle']) {
      for (let i = 0; i < 3; i += 1) await request(h.app).post(path).send(body).expect(200);
      const refused = await request(h.app).post(path).send(body).expect(429);
      assert.equal(refused.body.code, 'rate_limited');
      assert.ok(refused.headers['retry-after']);
      // The x402 surface serves the same handlers behind the same budget: no way around it.
      assert.equal((await request(h.app).post(`/x402${path}`).send(body)).status, 429);
    }
    await request(h.app).get('/supported').expect(200);
  });
});
