/**
 * Issue 11 item 6: a seller is told what became of the discovery metadata its payments carried, in
 * the Bazaar extension's EXTENSION-RESPONSES sidechannel (success / processing / rejected with a
 * reason), read by @x402/core's facilitator client and logged by the project's seller SDK.
 */
import assert from 'node:assert/strict';
import express from 'express';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { httpListingId } from '../src/catalog/identity.js';
import { createSeller, type CatalogOutcomeEvent, type Seller } from '../src/sdk/index.js';
import { waitFor } from './support/harness.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC } from './support/payments.js';
import { listen, startService, type Listening, type ServiceWorld } from './support/sdkWorld.js';
import { fundBuyer } from './support/chainFunding.js';

const DISCOVERY = { bazaar: { info: { input: { type: 'http', method: 'GET', queryParams: { city: 'Paris' } } } } };

describe('facilitator: sellers told what was cataloged (EXTENSION-RESPONSES bazaar)', function () {
  this.timeout(30_000);
  let world: ServiceWorld;
  let seller: Seller;
  let shop: Listening;
  const events: CatalogOutcomeEvent[] = [];
  const sellerWallet = privateKeyToAccount(generatePrivateKey());
  const buyer = privateKeyToAccount(generatePrivateKey());
  const pay = () => wrapFetchWithPaymentFromConfig(fetch, { schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] });

  before(async () => {
    // TRAFFIC_REFRESH_MS 0: each payment is looked at afresh (by default a repeat within a minute gets the earlier outcome).
    world = await startService({ TRAFFIC_REFRESH_MS: '0' });
    await fundBuyer(buyer.address, 1_000_000n);
    // No announce: the payments alone must get the route listed, and the seller hears each step.
    seller = createSeller({ serviceUrl: world.service.url, payTo: sellerWallet.address, announce: false, onCatalogOutcome: (e) => events.push(e) });
    const app = express();
    app.get('/forecast', seller.paid({ price: '$0.001', describe: { title: 'Forecast', description: 'Tomorrow, by city.' } }), (_req, res) => {
      res.json({ sky: 'clear' });
    });
    shop = await listen(app);
  });
  after(async () => {
    await seller?.close();
    await shop?.close();
    await world?.close();
  });

  it('a real seller paid by @x402/fetch hears processing for a new route, then success once it is listed', async () => {
    const url = `${shop.url}/forecast`;
    assert.equal((await pay()(url)).status, 200);
    assert.deepEqual(events.map((e) => [e.operation, e.resource]), [['verify', url], ['settle', url]]);
    assert.equal(events[0]!.status, 'processing', 'verify: a probe of the unlisted route is queued');
    // settle: queued for writing, or already listed by that probe (it is quick on loopback).
    assert.ok(['processing', 'success'].includes(events[1]!.status), events[1]!.status);
    const listed = await waitFor(async () => world.h.container.catalog.reader.get(httpListingId(url, 'GET')));
    assert.equal(listed.resource, url);

    // A later payment of the same route, now listed: cataloged.
    events.length = 0;
    await world.h.container.facilitator.cataloger.idle();
    assert.equal((await pay()(url)).status, 200);
    assert.deepEqual(events.map((e) => [e.operation, e.status]), [['verify', 'success'], ['settle', 'success']]);
  });

  it('a refused payment is rejected with the refusal; an unlistable resource with the address rule (@x402/core reads both)', async () => {
    const client = new HTTPFacilitatorClient({ url: world.service.url });
    const withDiscovery = (body: Awaited<ReturnType<typeof exactRequest>>) => ({ ...body.paymentPayload, extensions: DISCOVERY });

    const unfunded = await exactRequest(newWallet(), requirements(sellerWallet.address), {}, { url: 'https://api.weather-outcome.example/now', description: 'Now', mimeType: '' });
    const refused = await client.verify(withDiscovery(unfunded) as never, unfunded.paymentRequirements as never);
    assert.equal(refused.isValid, false);
    assert.deepEqual(refused.extensionResponses, {
      bazaar: { status: 'rejected', rejectedReason: 'the payment was refused (invalid_exact_evm_insufficient_balance); a refused payment lists nothing' },
    });

    // Loopback is allowed to this service's probe only for 127.0.0.0/8: a private address is only
    // ever a probe request (traffic lists nothing itself, issue 43), which the probe refuses, saying
    // "a private address" and nothing of what it resolved to.
    const inward = await exactRequest(buyer, requirements(sellerWallet.address), {}, { url: 'http://10.1.2.3/admin', description: 'Inward', mimeType: '' });
    const settled = await client.settle(withDiscovery(inward) as never, inward.paymentRequirements as never);
    assert.equal(settled.success, true);
    const bazaar = settled.extensionResponses?.bazaar as { status: string; rejectedReason?: string };
    assert.equal(bazaar.status, 'processing');
    const probe = await waitFor(async () => {
      const record = await world.h.container.probing.store.get(httpListingId('http://10.1.2.3/admin'));
      return record && record.status !== 'pending' ? record : undefined;
    });
    assert.equal(probe.reason, 'blocked_address');
    assert.match(probe.detail ?? '', /private address/);

    // Without discovery metadata there is nothing to report.
    const plain = await exactRequest(buyer, requirements(sellerWallet.address), {}, { url: 'https://api.plain-outcome.example/x', description: 'Plain', mimeType: '' });
    const quiet = await client.verify(plain.paymentPayload as never, plain.paymentRequirements as never);
    assert.equal(quiet.isValid, true);
    assert.equal(quiet.extensionResponses, undefined);
  });
});
