/**
 * Issue 24, deliverable 3: demand that is hard to fake. One wallet paying many times is one payer
 * (signals.uniquePayers7d, the largest payer's share), the Bazaar surface carries the 30-day calls
 * and payers as CDP shapes them, and the ranking's popularity factor follows distinct payers.
 * Real Elasticsearch, Redis and payments settled on the dev chain.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import type { LocalAccount } from 'viem';
import { httpListingId } from '../src/catalog/identity.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { fundBuyer } from './support/chainFunding.js';

describe('demand: distinct payers, the largest payer, 30-day quality', function () {
  this.timeout(60_000);
  let h: Harness;
  const payTo = newWallet().address;
  const resource = { url: 'http://demand.test/quote', description: 'Stock quotes by ticker', mimeType: 'application/json' };
  const id = httpListingId(resource.url, 'GET');

  before(async () => {
    h = await startHarness({ SIGNALS_FLUSH_MS: '200' });
    // Listed with the payTo its buyers pay (a payment counts only for the listing whose seller it paid: issue 43).
    await h.container.catalog.writer.upsert(
      { type: 'http', resource: resource.url, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo }, describe: { description: resource.description } },
      { source: 'import' },
    );
    await waitFor(async () => h.container.catalog.reader.get(id));
  });
  after(async () => h?.close());

  async function funded(): Promise<LocalAccount> {
    const wallet = newWallet();
    await fundBuyer(wallet.address, 1_000_000n);
    return wallet;
  }

  async function pay(payer: LocalAccount): Promise<void> {
    const body = await exactRequest(payer, requirements(payTo), {}, resource);
    assert.equal((await request(h.app).post('/settle').send(body).expect(200)).body.success, true);
  }

  const listing = async () => (await request(h.app).get(`/discovery/resources/${id}`)).body;

  it('a listing paid by one wallet ten times has uniquePayers7d 1, and that wallet holds the whole share', async () => {
    const wallet = await funded();
    for (let i = 0; i < 10; i++) await pay(wallet);
    const paid = await waitFor(async () => {
      const body = await listing();
      return body.signals?.settleCount7d === 10 ? body : undefined;
    });
    assert.equal(paid.signals.uniquePayers7d, 1);
    assert.equal(paid.signals.largestPayerShare7d, 1);
    assert.equal(paid.signals.settleCount30d, 10);
    assert.equal(paid.signals.uniquePayers30d, 1);

    const bazaar = await waitFor(async () => {
      const res = await request(h.app).get('/x402/discovery/resources').query({ limit: 100 }).expect(200);
      const item = (res.body.items as Array<{ metadata: { id: string }; quality: Record<string, unknown> }>).find((i) => i.metadata.id === id);
      return item?.quality.l30DaysTotalCalls === 10 ? item : undefined;
    });
    assert.deepEqual(bazaar.quality, { l30DaysTotalCalls: 10, l30DaysUniquePayers: 1, lastCalledAt: paid.signals.lastSettled });
  });

  it('three more wallets paying once each: four payers, the first wallet holds 10 of 13', async () => {
    for (let i = 0; i < 3; i++) await pay(await funded());
    const paid = await waitFor(async () => {
      const body = await listing();
      return body.signals?.settleCount7d === 13 ? body : undefined;
    });
    assert.equal(paid.signals.uniquePayers7d, 4);
    assert.equal(paid.signals.uniquePayers30d, 4);
    assert.equal(paid.signals.largestPayerShare7d, Math.round((10 / 13) * 10_000) / 10_000);
  });

  it("a wallet past its daily cap is still one payer, and its uncounted settlements do not raise its share", async () => {
    const before = await listing();
    const wallet = (await funded());
    for (let i = 0; i < 12; i++) await pay(wallet);
    const paid = await waitFor(async () => {
      const body = await listing();
      return body.signals?.uniquePayers7d === 5 && body.signals.settleCount7d === before.signals.settleCount7d + 10 ? body : undefined;
    });
    // Two wallets with 10 counted settlements each of 23.
    assert.equal(paid.signals.largestPayerShare7d, Math.round((10 / 23) * 10_000) / 10_000);
    assert.equal(paid.signals.settleCount30d, 23);
  });

  it('ranking: the popularity factor follows distinct payers, log-damped and bounded, and explain multiplies out to the score', async () => {
    // A listing nobody paid for, matching the same words.
    const { id: unpaid } = await h.container.catalog.writer.upsert(
      { type: 'http', resource: 'http://demand.test/quotes-too', payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000' }, describe: { title: 'Stock quotes by ticker' } },
      { source: 'import' },
    );
    const results = await waitFor(async () => {
      const res = await request(h.app).get('/discovery/search').query({ q: 'stock quotes by ticker', explain: '1' }).expect(200);
      const hits = res.body.results as Array<{ id: string; signals: { uniquePayers7d?: number }; debug: Record<string, number> }>;
      return hits.some((r) => r.id === unpaid) && hits.some((r) => r.id === id) ? hits : undefined;
    });
    const paid = results.find((r) => r.id === id)!;
    const payers = paid.signals.uniquePayers7d!;
    assert.equal(payers, 5);
    const { weight, saturation } = (await h.container.search.ranking.current()).popularity;
    assert.ok(Math.abs(paid.debug.popularityBoost! - (1 + (weight * Math.log10(1 + payers)) / Math.log10(1 + saturation))) < 1e-4, JSON.stringify(paid.debug));
    assert.equal(results.find((r) => r.id === unpaid)!.debug.popularityBoost, 1, 'no payers: exactly 1');
    for (const { debug: d } of results) {
      const product = d.relevance! * d.priceBoost! * d.recencyBoost! * d.healthBoost! * d.popularityBoost!;
      assert.ok(Math.abs(product - d.score!) / d.score! < 1e-4, JSON.stringify(d));
    }
  });
});
