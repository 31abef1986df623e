import assert from 'node:assert/strict';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { medianAmount } from '../src/signals/window.js';
import { toListing } from '../src/catalog/listing.js';
import { validateListingInput } from '../src/catalog/validation.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpInput } from './support/listings.js';
import { exactRequest, newWallet, NETWORK, requirements, RESOURCE, USDC, uptoRequest } from './support/payments.js';
import { fundBuyer } from './support/chainFunding.js';

describe('upto listings: median settled amount beside the ceiling', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ SIGNALS_FLUSH_MS: '200' });
  });
  after(async () => h.close());

  it('takes the median as an integer, the lower middle one for an even count', () => {
    assert.equal(medianAmount([]), undefined);
    assert.equal(medianAmount(['7']), '7');
    assert.equal(medianAmount(['300', '100', '9223372036854775807', '200']), '200');
    assert.equal(medianAmount(['9223372036854775806', '9223372036854775807', '9223372036854775805']), '9223372036854775806');
  });

  it('an exported upto listing with its median imports again (and a bad median is refused)', async () => {
    const signals = { settleCount7d: 3, rejectionRate7d: 0, medianSettledAmount7d: '700' };
    const input = httpInput({ resource: 'http://upto-import.test/x', payment: { ...httpInput().payment, scheme: 'upto' }, signals });
    assert.deepEqual(validateListingInput(input), []);
    for (const bad of ['07', '-1', '1.5', '9223372036854775808', 700]) {
      const errors = validateListingInput({ ...input, signals: { ...signals, medianSettledAmount7d: bad } });
      assert.deepEqual(errors.map((e) => e.path), ['signals.medianSettledAmount7d'], String(bad));
    }
    const { id } = await h.container.catalog.writer.upsert(input, { source: 'import' });
    const doc = await waitFor(async () => h.container.catalog.reader.get(id));
    assert.equal(toListing(doc).signals.medianSettledAmount7d, '700');
  });

  it('signals carry the median actually settled; maxPrice keeps comparing the ceiling', async function () {
    // The import, six traffic writes and the signals flushes are all applied inside the first wait below.
    this.timeout(40_000);
    const seller = newWallet();
    const payer = newWallet();
    const resource = { ...RESOURCE, url: 'http://upto-seller.test/summarize' };
    const id = httpListingId(resource.url, 'GET');
    const ceiling = { scheme: 'upto' as const, network: NETWORK, asset: USDC, amount: '5000', payTo: seller.address };
    await h.container.catalog.writer.upsert(httpInput({ resource: resource.url, payment: ceiling }), { source: 'import' });
    // Settled at once, the import possibly still in the write stream: the settlements' traffic writes
    // land after it and only mark it seen (test/facilitator-settle-race.test.ts holds the consumer to
    // make that order certain).
    // upto still settles on the Redis test ledger (issue 44: the "upto" step moves it on chain); exact on the chain.
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 100_000n);
    await fundBuyer(payer.address, 100_000n);
    const settled = ['100', '5000', '300', '700', '2500'];
    for (const amount of settled) {
      const body = await uptoRequest(payer, requirements(seller.address, { amount: '5000' }), {}, resource);
      const actual = { ...body, paymentRequirements: { ...body.paymentRequirements, amount } };
      assert.equal((await request(h.app).post('/settle').send(actual).expect(200)).body.success, true);
    }
    // An exact payment to another (listed) listing: no median there.
    const exactResource = { ...RESOURCE, url: 'http://exact-seller.test/forecast' };
    const exactPayment = { scheme: 'exact' as const, network: NETWORK, asset: USDC, amount: '900', payTo: seller.address };
    await h.container.catalog.writer.upsert(httpInput({ resource: exactResource.url, payment: exactPayment }), { source: 'import' });
    const exactBody = await exactRequest(payer, requirements(seller.address, { amount: '900' }), {}, exactResource);
    assert.equal((await request(h.app).post('/settle').send(exactBody).expect(200)).body.success, true);

    const listing = await waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${id}`);
      return res.status === 200 && res.body.signals?.settleCount7d === settled.length ? res.body : undefined;
    }, 25_000);
    assert.equal(listing.signals.medianSettledAmount7d, '700');
    assert.equal(listing.payment.amount, '5000', 'the ceiling stays in payment.amount');
    const exactListing = await waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${httpListingId(exactResource.url, 'GET')}`);
      return res.status === 200 && res.body.signals?.settleCount7d === 1 ? res.body : undefined;
    });
    assert.equal(exactListing.signals.medianSettledAmount7d, undefined);

    await h.elasticsearch.indices.refresh({ index: h.config.listingsAlias });
    const under = await request(h.app).get('/discovery/resources').query({ scheme: 'upto', maxPrice: '1000' }).expect(200);
    assert.ok(!under.body.results.some((r: { id: string }) => r.id === id), 'maxPrice compares the ceiling, not the median');
    const atCeiling = await request(h.app).get('/discovery/resources').query({ scheme: 'upto', maxPrice: '5000' }).expect(200);
    assert.ok(atCeiling.body.results.some((r: { id: string }) => r.id === id));
  });
});
