/**
 * Interop with the unmodified x402 npm packages: sellers protected by @x402/express (v2) and
 * x402-express (v1) use this service as their facilitator; buyers pay with @x402/fetch + @x402/evm
 * (v2) and x402-fetch (v1) from a local viem wallet funded on the dev chain (`upto` still settles on
 * the Redis test ledger until it settles on chain too, issue 44).
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { UptoEvmScheme as UptoEvmServer } from '@x402/evm/upto/server';
import { paymentMiddleware, setSettlementOverrides, x402ResourceServer } from '@x402/express';
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { paymentMiddleware as paymentMiddlewareV1 } from 'x402-express';
import { createSigner, wrapFetchWithPayment as wrapFetchWithPaymentV1 } from 'x402-fetch';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { NETWORK, newWallet, paymentResponse, USDC } from './support/payments.js';
import { assertMined, fundBuyer, usdcBalance } from './support/chainFunding.js';
import { close, listen } from './support/listen.js';

interface SearchHit {
  id: string;
  resource: string;
  describe: { description?: string; inputs?: Record<string, string> };
  payment: { scheme: string; network: string; amount: string };
  signals: { settleCount7d: number; lastSettled?: string; rejectionRate7d: number };
}

describe('facilitator interop with the x402 npm packages', function () {
  this.timeout(30_000);
  let h: Harness;
  let facilitator: Server;
  let facilitatorUrl: string;
  let seller: Server | undefined;
  const payTo = newWallet().address;

  before(async () => {
    // The sellers run on loopback: the operator allow-list that lets the probe reach local sellers
    // also lets their settlements be listed (traffic never lists an address the probe would refuse).
    h = await startHarness({ SIGNALS_FLUSH_MS: '200', PROBE_ALLOW: '127.0.0.0/8' });
    ({ server: facilitator, url: facilitatorUrl } = await listen(h.app));
  });
  afterEach(async () => close(seller));
  after(async () => {
    await close(facilitator);
    await h.close();
  });

  const search = async (q: string): Promise<SearchHit[]> => (await request(h.app).get('/discovery/search').query({ q }).expect(200)).body.results;

  it('v2: @x402/express seller + @x402/fetch buyer pay exact; the resource is searchable with its description and signals', async () => {
    const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl }))
      .register(NETWORK, new ExactEvmServer())
      .registerExtension(bazaarResourceServerExtension);
    const app = express();
    app.use(
      paymentMiddleware(
        {
          'GET /weather': {
            accepts: { scheme: 'exact', price: '$0.001', network: NETWORK, payTo },
            description: 'Current weather conditions for any city',
            mimeType: 'application/json',
            extensions: {
              ...declareDiscoveryExtension({
                input: { city: 'Paris' },
                inputSchema: { properties: { city: { type: 'string' } }, required: ['city'] },
                output: { example: { tempC: 12 } },
              }),
            },
          },
        },
        resourceServer,
      ),
    );
    app.get('/weather', (_req, res) => {
      res.json({ city: 'Paris', tempC: 12 });
    });
    const started = await listen(app);
    seller = started.server;

    const buyer = privateKeyToAccount(generatePrivateKey());
    await fundBuyer(buyer.address, 1_000_000n);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const paidFetch = wrapFetchWithPayment(fetch, client);

    const unpaid = await fetch(`${started.url}/weather?city=Paris`);
    assert.equal(unpaid.status, 402);
    const res = await paidFetch(`${started.url}/weather?city=Paris`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { city: 'Paris', tempC: 12 });
    await assertMined(paymentResponse(res).transaction);
    assert.equal(await usdcBalance(buyer.address), 999_000n);
    assert.equal(await usdcBalance(payTo), 1000n);

    const hit = await waitFor(async () => {
      const found = (await search('weather conditions')).find((r) => r.resource === `${started.url}/weather`);
      return found && found.signals.settleCount7d === 1 ? found : undefined;
    });
    assert.equal(hit.describe.description, 'Current weather conditions for any city');
    assert.deepEqual(hit.describe.inputs, { city: 'string' });
    assert.equal(hit.payment.scheme, 'exact');
    assert.equal(hit.payment.network, NETWORK);
    assert.equal(hit.payment.amount, '1000');
    assert.ok(hit.signals.lastSettled);
    assert.equal(hit.signals.rejectionRate7d, 0);
  });

  it('v2 upto: the seller settles the actual amount (setSettlementOverrides), at most the ceiling', async () => {
    const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(NETWORK, new UptoEvmServer());
    const app = express();
    app.use(
      paymentMiddleware(
        { 'GET /complete': { accepts: { scheme: 'upto', price: '$0.01', network: NETWORK, payTo }, description: 'Metered text completion' } },
        resourceServer,
      ),
    );
    app.get('/complete', (_req, res) => {
      setSettlementOverrides(res, { amount: '2500' });
      res.json({ text: 'hello' });
    });
    const started = await listen(app);
    seller = started.server;

    const buyer = privateKeyToAccount(generatePrivateKey());
    await h.container.facilitator.ledger.fund(NETWORK, USDC, buyer.address, 1_000_000n);
    const client = new x402Client();
    client.register(NETWORK, new UptoEvmScheme(buyer));
    const before = await h.container.facilitator.ledger.balance(NETWORK, USDC, payTo);
    const res = await wrapFetchWithPayment(fetch, client)(`${started.url}/complete`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(await h.container.facilitator.ledger.balance(NETWORK, USDC, buyer.address), 997_500n);
    assert.equal((await h.container.facilitator.ledger.balance(NETWORK, USDC, payTo)) - before, 2500n);
  });

  it('v1: x402-express seller + x402-fetch buyer on base-sepolia; listed under the CAIP-2 network', async () => {
    const app = express();
    app.use(
      paymentMiddlewareV1(
        payTo,
        { 'GET /v1/quote': { price: '$0.002', network: 'base-sepolia', config: { description: 'Legacy stock quote service', inputSchema: { queryParams: { ticker: 'string' } } } } },
        { url: facilitatorUrl as `${string}://${string}` },
      ),
    );
    app.get('/v1/quote', (_req, res) => {
      res.json({ ticker: 'ACME', price: 42 });
    });
    const started = await listen(app);
    seller = started.server;

    const key = generatePrivateKey();
    const signer = await createSigner('base-sepolia', key);
    await fundBuyer(privateKeyToAccount(key).address, 1_000_000n);
    const res = await wrapFetchWithPaymentV1(fetch, signer)(`${started.url}/v1/quote`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.ok(res.headers.get('x-payment-response'));
    await assertMined(paymentResponse(res).transaction);
    assert.equal(await usdcBalance(privateKeyToAccount(key).address), 998_000n);

    const hit = await waitFor(async () => {
      const found = (await search('legacy stock quote')).find((r) => r.resource === `${started.url}/v1/quote`);
      return found && found.signals.settleCount7d === 1 ? found : undefined;
    });
    assert.equal(hit.payment.network, 'eip155:84532');
    assert.equal(hit.describe.description, 'Legacy stock quote service');
    assert.deepEqual(hit.describe.inputs, { ticker: 'string' });
  });
});
