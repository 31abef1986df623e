import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { wrapFetchWithPaymentFromConfig, decodePaymentResponseHeader } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { wrapFetchWithPayment as wrapFetchV1, createSigner } from 'x402-fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSeller, type Seller } from '../src/sdk/index.js';
import { waitFor } from './support/harness.js';
import { listen, startService, type Listening, type ServiceWorld } from './support/sdkWorld.js';
import { assertMined, fundBuyer, usdcBalance } from './support/chainFunding.js';

const NETWORK = 'eip155:84532';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const DESCRIBE = {
  title: 'City weather now',
  description: 'Current temperature, wind and sky for a city, updated every ten minutes.',
  tags: ['weather', 'climate'],
  inputs: { city: 'string' },
};

const decode = (value: string | null | undefined) => JSON.parse(Buffer.from(String(value), 'base64').toString('utf8'));

describe('seller SDK: Express paid() middleware', function () {
  this.timeout(30_000);
  let world: ServiceWorld;
  let seller: Seller;
  let shop: Listening;
  const sellerWallet = privateKeyToAccount(generatePrivateKey());
  const buyerKey = generatePrivateKey();
  const buyer = privateKeyToAccount(buyerKey);
  const errors: Error[] = [];

  before(async () => {
    world = await startService();
    await fundBuyer(buyer.address, 1_000_000n);
    seller = createSeller({ serviceUrl: world.service.url, payTo: sellerWallet.address, onError: (e) => errors.push(e) });
    const app = express();
    app.get('/weather/:city', seller.paid({ price: '$0.001', describe: DESCRIBE }), (req, res) => {
      res.json({ city: req.params.city, tempC: 21, paidBy: res.locals.x402?.payer });
    });
    app.post('/translate', seller.paid({ amount: '2500', describe: { title: 'Translate text' } }), (_req, res) => {
      res.json({ text: 'bonjour' });
    });
    shop = await listen(app);
  });
  after(async () => {
    await seller?.close();
    await shop?.close();
    await world?.close();
  });

  it('an unpaid request gets 402 with a v2 PAYMENT-REQUIRED header and a v1 body, both with describe', async () => {
    const res = await request(shop.url).get('/weather/paris').expect(402);
    const v2 = decode(res.headers['payment-required']);
    assert.equal(v2.x402Version, 2);
    assert.equal(v2.resource.url, `${shop.url}/weather/paris`);
    assert.deepEqual(v2.accepts, [
      { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo: sellerWallet.address, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } },
    ]);
    assert.deepEqual(v2.describe, DESCRIBE);
    assert.equal(v2.extensions.bazaar.routeTemplate, '/weather/:city');
    assert.equal(v2.extensions.bazaar.info.input.method, 'GET');

    assert.equal(res.body.x402Version, 1);
    assert.equal(typeof res.body.error, 'string');
    assert.deepEqual(res.body.describe, DESCRIBE);
    const [v1] = res.body.accepts;
    assert.equal(v1.network, 'base-sepolia');
    assert.equal(v1.maxAmountRequired, '1000');
    assert.equal(v1.resource, `${shop.url}/weather/paris`);
    assert.equal(v1.description, DESCRIBE.description);
    assert.equal(v1.asset, USDC);
    assert.equal(v1.payTo, sellerWallet.address);
  });

  it('the first 402 announces the route; the service probes it and lists it with the describe block', async () => {
    await request(shop.url).get('/weather/lyon').expect(402);
    const listing = await waitFor(async () => {
      const res = await request(world.h.app).get('/discovery/search').query({ q: 'city weather temperature' }).expect(200);
      return res.body.results.find((r: { resource: string }) => r.resource === `${shop.url}/weather/{city}`);
    }, 10_000);
    assert.equal(listing.type, 'http');
    assert.equal(listing.payment.amount, '1000');
    assert.equal(listing.payment.network, NETWORK);
    assert.equal(listing.describe.title, DESCRIBE.title);
    assert.deepEqual(listing.describe.tags, DESCRIBE.tags);
    assert.equal(seller.announcer?.announced().length, 1, 'one route, announced once however many 402s');
  });

  it('pays with the real @x402/fetch v2 client: 200, PAYMENT-RESPONSE naming a mined transaction, and the seller is paid on chain', async () => {
    const before = await usdcBalance(sellerWallet.address);
    const pay = wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] });
    const res = await pay(`${shop.url}/weather/nice`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { city: string; paidBy?: string };
    assert.equal(body.city, 'nice');
    assert.equal(body.paidBy?.toLowerCase(), buyer.address.toLowerCase());
    const receipt = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!);
    assert.equal(receipt.success, true);
    assert.equal(receipt.network, NETWORK);
    await assertMined(receipt.transaction);
    const after = await usdcBalance(sellerWallet.address);
    assert.equal(after - before, 1000n);
  });

  it('pays with the x402 v1 client (X-PAYMENT from the v1 body): 200 and X-PAYMENT-RESPONSE', async () => {
    const signer = await createSigner('base-sepolia', buyerKey);
    const pay = wrapFetchV1(fetch, signer);
    const res = await pay(`${shop.url}/translate`, { method: 'POST' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { text: 'bonjour' });
    assert.equal(decode(res.headers.get('X-PAYMENT-RESPONSE')).success, true);
  });

  it('a bad or replayed payment gets 402 again with the reason, and the handler does not run', async () => {
    const garbage = await request(shop.url).get('/weather/paris').set('PAYMENT-SIGNATURE', 'not-base64!').expect(402);
    assert.match(garbage.body.error, /invalid_payload/);

    let captured: string | undefined;
    const recording: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      captured ??= headers.get('PAYMENT-SIGNATURE') ?? undefined;
      return fetch(input, init);
    };
    const pay = wrapFetchWithPaymentFromConfig(recording, { schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] });
    assert.equal((await pay(`${shop.url}/weather/rome`)).status, 200);
    assert.ok(captured, 'the client sent PAYMENT-SIGNATURE');
    const replay = await request(shop.url).get('/weather/rome').set('PAYMENT-SIGNATURE', captured!).expect(402);
    assert.ok(decode(replay.headers['payment-required']).error, 'the challenge names why');
  });

  it('one payment header sent with two concurrent requests pays for one of them only', async () => {
    let captured: string | undefined;
    const capture: typeof fetch = async (input, init) => {
      const sent = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('PAYMENT-SIGNATURE');
      if (!sent) return fetch(input, init);
      // The payment is captured, not spent.
      captured = sent;
      return new Response('{}', { status: 418 });
    };
    const pay = wrapFetchWithPaymentFromConfig(capture, { schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] });
    await pay(`${shop.url}/weather/oslo`).catch(() => undefined);
    assert.ok(captured, 'a payment was signed');
    const statuses = await Promise.all([1, 2].map(async () => (await request(shop.url).get('/weather/oslo').set('PAYMENT-SIGNATURE', captured!)).status));
    assert.deepEqual(statuses.sort(), [200, 402]);
  });

  it("the seller's 402 never waits for the service: a dead service still gets instant challenges", async () => {
    const offline = createSeller({ serviceUrl: 'http://127.0.0.1:1', payTo: sellerWallet.address, announce: { initialBackoffMs: 50, maxAttempts: 2 } });
    const app = express();
    app.get('/quote', offline.paid({ amount: '10' }), (_req, res) => res.json({ ok: true }));
    const local = await listen(app);
    try {
      for (let i = 0; i < 3; i++) await request(local.url).get('/quote').expect(402);
      await offline.announcer?.flush();
      assert.deepEqual(offline.announcer?.announced(), []);
      const paid = await request(local.url).get('/quote').set('X-PAYMENT', Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: {} })).toString('base64')).expect(503);
      assert.equal(paid.body.error, 'facilitator_unavailable');
    } finally {
      await offline.close();
      await local.close();
    }
  });

  it('a request with a bogus Host header does not stop the real origin from being announced', async () => {
    const announced: string[] = [];
    const recording: typeof fetch = async (_input, init) => {
      announced.push(JSON.parse(String(init?.body)).resource);
      return new Response('{}', { status: 202, headers: { 'content-type': 'application/json' } });
    };
    const local = createSeller({ serviceUrl: 'http://service.invalid', payTo: sellerWallet.address, fetch: recording });
    const app = express();
    app.get('/stock/:ticker', local.paid({ amount: '10' }), (_req, res) => res.json({ ok: true }));
    const listening = await listen(app);
    try {
      await request(listening.url).get('/stock/abc').set('Host', 'bogus.example').expect(402);
      await local.announcer?.flush();
      await request(listening.url).get('/stock/xyz').expect(402);
      await local.announcer?.flush();
      assert.deepEqual(announced, ['http://bogus.example/stock/abc', `${listening.url}/stock/xyz`]);
      assert.equal(local.announcer?.announced().length, 2);
    } finally {
      await local.close();
      await listening.close();
    }
  });

  it('a misconfigured price fails when the route is declared, not on a request', () => {
    assert.throws(() => seller.paid({ price: '0.0000001' }), /more than 6 decimals/);
    assert.throws(() => seller.paid({ amount: '1.5' }), /integer/);
    assert.throws(() => createSeller({ serviceUrl: 'http://x' }).paid({ amount: '1' }), /payTo/);
  });
});
