/**
 * Issue 43, items 1 and 2: a settlement counts only for the seller it paid, and traffic never
 * writes a listing. Each attack of the issue, as a hostile caller would make it against the demo
 * catalog: wallet A pays its own wallet B and names a competitor's URL; sybil wallets sink its
 * rejection rate; a settlement names a stranger's host, or rewrites a listing traffic made. Each now
 * changes nothing a buyer can see. The honest path (a payment to the listed payTo, before and after
 * the resource is listed) still counts.
 */
import assert from 'node:assert/strict';
import request from 'supertest';
import { httpListingId } from '../src/catalog/identity.js';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { seedDemoCatalog } from './support/demoCatalog.js';
import { decodeBase64Json, EXTENSION_RESPONSES_HEADER } from '../src/x402/wire.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { answers, startServer, v2Challenge, type LocalServer } from './support/sellers.js';
import { fundBuyer } from './support/chainFunding.js';

const ALERTS = 'https://weather.meteostack.io/alerts';
const ALERTS_PAY_TO = '0x7a3F1b9C2d4E5f60718293A4b5C6d7E8f9012345';
const withBazaar = <T extends { paymentPayload: object }>(body: T, input: Record<string, unknown> = { type: 'http', method: 'GET' }) => ({
  ...body,
  paymentPayload: { ...body.paymentPayload, extensions: { bazaar: { info: { input } } } },
});

describe('a settlement counts only for the seller it paid (issue 43, items 1 and 2)', function () {
  this.timeout(60_000);
  let h: Harness;
  let seller: LocalServer;
  const sellerPayTo = newWallet().address;

  before(async () => {
    seller = await startServer({
      '/paid/forecast': answers.v2(() => v2Challenge(seller.url('/paid/forecast'), { payTo: sellerPayTo, describe: { title: 'Tide forecast', description: 'The seller\'s own words' } })),
      '/paid/other': answers.v2(() => v2Challenge(seller.url('/paid/other'), { payTo: sellerPayTo })),
    });
    h = await startHarness({ SIGNALS_FLUSH_MS: '100', PROBE_ALLOW: `127.0.0.1:${seller.port}`, PROBE_MIN_INTERVAL_MS: '0' });
    await seedDemoCatalog(h);
  });
  after(async () => {
    await h?.close();
    await seller?.close();
  });

  const post = async (path: string, body: unknown) => {
    const res = await request(h.app).post(path).send(body as object).expect(200);
    const header = res.headers[EXTENSION_RESPONSES_HEADER.toLowerCase()];
    return { body: res.body, bazaar: header ? (decodeBase64Json(String(header)) as { bazaar: { status: string; rejectedReason?: string } }).bazaar : undefined };
  };
  const funded = async (amount = 1_000_000n) => {
    const wallet = newWallet();
    await fundBuyer(wallet.address, amount);
    return wallet;
  };
  const visible = async (id: string) => {
    const res = await request(h.app).get(`/discovery/resources/${id}`).expect(200);
    const { signals, provenance, payment, describe } = res.body;
    return { signals, provenance, payment, describe };
  };
  /** Lets anything the attack could have set going reach the catalog: traffic work, a signals flush, the write queue. */
  const drained = async () => {
    await h.container.facilitator.cataloger.idle();
    await new Promise((resolve) => setTimeout(resolve, 600));
    const marker = `http://marker.test/${Date.now()}${Math.random().toString(36).slice(2)}`;
    const { id } = await h.container.catalog.writer.upsert({ type: 'http', resource: marker, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1' } }, { source: 'import' });
    await waitFor(async () => h.container.catalog.reader.get(id));
  };

  it('wallet A pays its own wallet B naming a competitor\'s URL: it settles, and the competitor\'s signals and provenance do not move', async () => {
    const id = httpListingId(ALERTS);
    const before = await visible(id);
    assert.equal(before.signals.settleCount7d, 96);
    const a = await funded();
    const b = newWallet();
    for (let i = 0; i < 5; i += 1) {
      const { body, bazaar } = await post('/settle', withBazaar(await exactRequest(a, requirements(b.address, { amount: '2000' }), {}, { url: ALERTS, description: 'x', mimeType: '' })));
      assert.equal(body.success, true, 'a valid payment settles');
      assert.equal(bazaar?.status, 'rejected');
      assert.match(bazaar!.rejectedReason!, /does not name as payTo/);
    }
    // The competitor's own payTo, below its price: settled, not counted either.
    const cheap = await post('/settle', await exactRequest(a, requirements(ALERTS_PAY_TO, { amount: '100' }), {}, { url: ALERTS, description: 'x', mimeType: '' }));
    assert.equal(cheap.body.success, true);
    await drained();
    assert.deepEqual(await visible(id), before);
  });

  it('sybil wallets sink nobody\'s rejection rate: refusals from wallets that could not pay, or that pay somebody else', async () => {
    const id = httpListingId(ALERTS);
    const before = await visible(id);
    for (let i = 0; i < 12; i += 1) {
      // Funded with one unit (below the 2000 price), signing bad terms for the competitor's payTo.
      const poor = await funded(1n);
      const refused = await post('/verify', await exactRequest(poor, requirements(ALERTS_PAY_TO, { amount: '2000' }), { value: '1' }, { url: ALERTS, description: 'x', mimeType: '' }));
      assert.equal(refused.body.isValid, false);
      // Rich, but the requirements name another payTo: a refusal of somebody else's payment.
      const rich = await funded();
      await post('/verify', await exactRequest(rich, requirements(newWallet().address, { amount: '2000' }), { value: '1' }, { url: ALERTS, description: 'x', mimeType: '' }));
    }
    await drained();
    assert.deepEqual(await visible(id), before);
  });

  it('a settlement naming a stranger\'s host lists nothing of the payer\'s: the host is only probed (GET), and lists on its own 402', async () => {
    const payer = await funded();
    const payee = newWallet().address;
    const claims = { url: 'https://api.stripe.com/v1/charges', description: 'Charge cards (not really)', mimeType: '', serviceName: 'Attacker title' };
    const stripe = await post('/settle', withBazaar(await exactRequest(payer, requirements(payee), {}, claims), { type: 'http', method: 'POST' }));
    assert.equal(stripe.body.success, true);
    assert.match(stripe.bazaar!.rejectedReason!, /GET or HEAD/);
    const unresolvable = await post('/settle', withBazaar(await exactRequest(payer, requirements(payee), {}, { ...claims, url: 'https://pay.nowhere-at-all.invalid/x' })));
    assert.equal(unresolvable.bazaar?.status, 'processing');
    // A real seller's resource named by a payment to somebody else: its probe lists it with the
    // seller's own 402 (title, payTo), and the payment counts for nothing.
    const url = seller.url('/paid/forecast');
    const foreign = await post('/settle', withBazaar(await exactRequest(payer, requirements(payee), {}, { ...claims, url })));
    assert.equal(foreign.bazaar?.status, 'processing');
    const listed = await waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${httpListingId(url)}`);
      return res.status === 200 ? res.body : undefined;
    });
    assert.equal(listed.describe.title, 'Tide forecast');
    assert.equal(listed.payment.payTo, sellerPayTo);
    await drained();
    assert.equal((await visible(httpListingId(url))).signals.settleCount7d, 0, 'the payment to somebody else waited for the probe and counted for nothing');
    for (const gone of [claims.url, 'https://pay.nowhere-at-all.invalid/x']) {
      await request(h.app).get(`/discovery/resources/${httpListingId(gone, 'POST')}`).expect(404);
      await request(h.app).get(`/discovery/resources/${httpListingId(gone)}`).expect(404);
    }
    const titles = (await request(h.app).get('/discovery/search').query({ q: 'Attacker title charge cards' }).expect(200)).body.results.map((r: { describe?: { title?: string } }) => r.describe?.title);
    assert.ok(!titles.includes('Attacker title'));
  });

  it('the seller\'s first sale, settled before its resource was listed, counts once the probe lists it', async () => {
    const url = seller.url('/paid/other');
    const buyer = await funded();
    const price = requirements(sellerPayTo, { amount: '2500' });
    const { bazaar } = await post('/settle', withBazaar(await exactRequest(buyer, price, {}, { url, description: 'x', mimeType: '' })));
    assert.equal(bazaar?.status, 'processing');
    const counted = await waitFor(async () => {
      const res = await request(h.app).get(`/discovery/resources/${httpListingId(url)}`);
      return res.status === 200 && res.body.signals.settleCount7d === 1 ? res.body : undefined;
    });
    assert.equal(counted.signals.uniquePayers7d, 1);
    assert.ok(counted.provenance.settled);
    assert.equal(counted.provenance.probed402.lastStatus, 'valid_402');
    // Listed now: the next sale counts at once, and says so.
    const next = await post('/settle', withBazaar(await exactRequest(buyer, price, {}, { url, description: 'x', mimeType: '' })));
    assert.equal(next.bazaar?.status, 'success');
    await waitFor(async () => (await visible(httpListingId(url))).signals.settleCount7d === 2);
  });

  it('a listing traffic made (before issue 43) is never rewritten by a later settlement, whoever pays', async () => {
    const url = 'https://legacy-traffic.example/quote';
    const { id } = await h.container.catalog.writer.upsert(
      { type: 'http', resource: url, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo: sellerPayTo }, describe: { title: 'Legacy quotes' } },
      { source: 'traffic' },
    );
    await waitFor(async () => h.container.catalog.reader.get(id));
    const before = await visible(id);
    const payer = await funded();
    const attacker = newWallet().address;
    await post('/settle', withBazaar(await exactRequest(payer, requirements(attacker, { amount: '5' }), {}, { url, description: 'Rewritten', mimeType: '', serviceName: 'Owned' } as never)));
    await post('/settle', withBazaar(await exactRequest(payer, requirements(attacker, { amount: '100000' }), {}, { url, description: 'Rewritten', mimeType: '' })));
    await drained();
    assert.deepEqual(await visible(id), before);
  });

  it('a value-free upto /verify from an unfunded key is refused and probes nothing; a DELETE resource is never probed', async () => {
    const { uptoRequest } = await import('./support/payments.js');
    const fresh = newWallet();
    const url = 'https://victim.example/api/users/1';
    const ceiling = await uptoRequest(fresh, requirements(newWallet().address, { amount: '1' }), { ceiling: '1' }, { url, description: '', mimeType: '' });
    const free = { ...ceiling, paymentRequirements: { ...ceiling.paymentRequirements, amount: '0' } };
    const verdict = await post('/verify', free);
    assert.equal(verdict.body.isValid, false);
    assert.equal(verdict.body.invalidReason, 'sponsorship_declined');
    const rich = await funded();
    const deleting = await post('/verify', withBazaar(await exactRequest(rich, requirements(newWallet().address), {}, { url, description: '', mimeType: '' }), { type: 'http', method: 'DELETE' }));
    assert.equal(deleting.body.isValid, true);
    assert.match(deleting.bazaar!.rejectedReason!, /GET or HEAD/);
    await drained();
    for (const method of ['GET', 'DELETE']) assert.equal(await h.container.probing.store.get(httpListingId(url, method)), undefined, method);
  });
});
