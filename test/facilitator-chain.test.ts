/**
 * Issue 44: `exact` settled on the dev chain, with the real node and contracts, the unmodified x402
 * packages as seller and buyer (v2 and v1), and the service's facilitator key (the harness's
 * default: every integration test settles there; it fails, never skips, without the node).
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { encodeFunctionData, getAddress, keccak256, parseSignature, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { eip3009ABI } from '@x402/evm';
import { TxJournalStore } from '../src/store/redis/txJournal.js';
import { paymentMiddleware as paymentMiddlewareV1 } from 'x402-express';
import { createSigner, wrapFetchWithPayment as wrapFetchWithPaymentV1 } from 'x402-fetch';
import { startHarness, waitFor, type Harness } from './support/harness.js';
import { httpListingId } from '../src/catalog/identity.js';
import { exactRequest, NETWORK, newWallet, paymentResponse, requirements, USDC } from './support/payments.js';
import { assertMined, chainClient, DEV_FACILITATOR_KEY, fundBuyer, fundGas, mineBlock, setAutomine, usdcBalance } from './support/chainFunding.js';
import { close, listen } from './support/listen.js';

describe('facilitator: exact settled on the dev chain (issue 44)', function () {
  this.timeout(60_000);
  let h: Harness;
  let facilitator: Server;
  let facilitatorUrl: string;
  let seller: Server | undefined;

  before(async function () {
    h = await startHarness();
    ({ server: facilitator, url: facilitatorUrl } = await listen(h.app));
  });
  afterEach(async () => close(seller));
  after(async () => {
    await close(facilitator);
    await h?.close();
  });

  it('/supported lists the configured network and names the facilitator key', async () => {
    const body = (await request(h.app).get('/supported').expect(200)).body;
    assert.deepEqual([...new Set(body.kinds.map((k: { network: string }) => k.network))], [NETWORK, 'base-sepolia']);
    assert.deepEqual(body.signers, { 'eip155:*': [privateKeyToAccount(DEV_FACILITATOR_KEY).address] });
  });

  it('v2: an @x402/express seller paid by an @x402/fetch buyer receives the USDC on chain, in a mined transaction', async () => {
    const payTo = newWallet().address;
    const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(NETWORK, new ExactEvmServer());
    const app = express();
    app.use(paymentMiddleware({ 'GET /weather': { accepts: { scheme: 'exact', price: '$0.001', network: NETWORK, payTo }, description: 'Weather' } }, resourceServer));
    app.get('/weather', (_req, res) => void res.json({ temp: 21 }));
    const started = await listen(app);
    seller = started.server;
    const buyer = privateKeyToAccount(generatePrivateKey());
    await fundBuyer(buyer.address, 1_000_000n);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: buyer });
    const res = await wrapFetchWithPayment(fetch, client)(`${started.url}/weather`);
    assert.equal(res.status, 200, await res.clone().text());
    const settled = paymentResponse(res);
    assert.equal(settled.success, true);
    await assertMined(settled.transaction);
    assert.equal(await usdcBalance(payTo), 1000n);
    assert.equal(await usdcBalance(buyer.address), 999_000n);
  });

  it('v1: an x402-express seller paid by an x402-fetch buyer on base-sepolia, settled on chain', async () => {
    const payTo = newWallet().address;
    const app = express();
    app.use(paymentMiddlewareV1(payTo, { 'GET /quote': { price: '$0.002', network: 'base-sepolia' } }, { url: facilitatorUrl as `${string}://${string}` }));
    app.get('/quote', (_req, res) => void res.json({ price: 42 }));
    const started = await listen(app);
    seller = started.server;
    const key = generatePrivateKey();
    await fundBuyer(privateKeyToAccount(key).address, 1_000_000n);
    const res = await wrapFetchWithPaymentV1(fetch, await createSigner('base-sepolia', key))(`${started.url}/quote`);
    assert.equal(res.status, 200, await res.clone().text());
    await assertMined(paymentResponse(res).transaction);
    assert.equal(await usdcBalance(payTo), 2000n);
  });

  it('an unfunded buyer is refused from chain state: invalid_exact_evm_insufficient_balance (v2), insufficient_funds (v1)', async () => {
    const body = await exactRequest(newWallet(), requirements(newWallet().address));
    assert.equal((await request(h.app).post('/verify').send(body).expect(200)).body.invalidReason, 'invalid_exact_evm_insufficient_balance');
    const settled = (await request(h.app).post('/settle').send(body).expect(200)).body;
    assert.equal(settled.success, false);
    const v1 = {
      x402Version: 1,
      paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: body.paymentPayload.payload },
      paymentRequirements: { ...body.paymentRequirements, network: 'base-sepolia', maxAmountRequired: body.paymentRequirements.amount, resource: 'http://seller.test/x', description: '', mimeType: 'application/json' },
    };
    assert.equal((await request(h.app).post('/verify').send(v1).expect(200)).body.invalidReason, 'insufficient_funds');
  });

  it('replays and concurrent duplicates settle once: one transaction, one transfer', async () => {
    const buyer = newWallet();
    const payTo = newWallet().address;
    await fundBuyer(buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(payTo));
    const answers = await Promise.all(Array.from({ length: 5 }, () => request(h.app).post('/settle').send(body)));
    const replay = await request(h.app).post('/settle').send(body);
    const hashes = new Set([...answers, replay].map((a) => a.body.transaction));
    assert.equal(hashes.size, 1, JSON.stringify([...answers, replay].map((a) => a.body)));
    assert.ok([...answers, replay].every((a) => a.body.success === true));
    await assertMined([...hashes][0]!);
    assert.equal(await usdcBalance(payTo), 1000n);
    assert.equal((await request(h.app).post('/verify').send(body).expect(200)).body.invalidReason, 'invalid_exact_evm_nonce_already_used');
  });

  it('a settle still pending names its transaction; another gateway retrying it answers with the same one and sends nothing', async () => {
    const other = await startHarness({ REDIS_PREFIX: h.config.redisPrefix, LISTINGS_ALIAS: h.config.listingsAlias, LISTINGS_INDEX: h.config.listingsIndex, CHAIN_RECEIPT_TIMEOUT_MS: '1000' });
    const slow = await startHarness({ REDIS_PREFIX: h.config.redisPrefix, LISTINGS_ALIAS: h.config.listingsAlias, LISTINGS_INDEX: h.config.listingsIndex, CHAIN_RECEIPT_TIMEOUT_MS: '1000' });
    try {
      const buyer = newWallet();
      const payTo = newWallet().address;
      await fundBuyer(buyer.address, 5000n);
      const body = await exactRequest(buyer, requirements(payTo));
      await setAutomine(false);
      const pending = (await request(slow.app).post('/settle').send(body).expect(200)).body;
      assert.equal(pending.errorReason, 'settlement_pending', JSON.stringify(pending));
      assert.match(pending.transaction, /^0x[0-9a-f]{64}$/);
      const stillPending = (await request(other.app).post('/settle').send(body).expect(200)).body;
      assert.equal(stillPending.transaction, pending.transaction);
      await mineBlock();
      await setAutomine(true);
      const settled = (await request(other.app).post('/settle').send(body).expect(200)).body;
      assert.equal(settled.success, true);
      assert.equal(settled.transaction, pending.transaction);
      assert.equal(await usdcBalance(payTo), 1000n);
    } finally {
      await setAutomine(true);
      await Promise.all([other.close(), slow.close()]);
    }
  });

  it('a gateway that died after journaling its transaction but before broadcasting it: the retry sends those same bytes, nothing else', async () => {
    const buyer = newWallet();
    const payTo = newWallet().address;
    await fundBuyer(buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(payTo));
    const { authorization, signature } = body.paymentPayload.payload as { authorization: Record<string, string>; signature: Hex };
    // What TransactionSender journals before its broadcast, for this authorization, signed by the facilitator key.
    const { v, r, s } = parseSignature(signature);
    const data = encodeFunctionData({
      abi: eip3009ABI,
      functionName: 'transferWithAuthorization',
      args: [getAddress(authorization.from!), getAddress(authorization.to!), BigInt(authorization.value!), BigInt(authorization.validAfter!), BigInt(authorization.validBefore!), authorization.nonce as Hex, Number(v), r, s],
    });
    const facilitatorAccount = privateKeyToAccount(DEV_FACILITATOR_KEY);
    const fees = await chainClient.estimateFeesPerGas();
    const raw = await facilitatorAccount.signTransaction({
      chainId: 84532, type: 'eip1559', to: USDC, data, gas: 200_000n,
      nonce: await chainClient.getTransactionCount({ address: facilitatorAccount.address, blockTag: 'pending' }),
      maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const key = `${NETWORK}:eip3009:${USDC.toLowerCase()}:${authorization.from!.toLowerCase()}:${authorization.nonce!.toLowerCase()}`;
    assert.equal(await new TxJournalStore(h.redis, h.config.redisPrefix).claim(key, { hash: keccak256(raw), raw }), undefined);
    const settled = (await request(h.app).post('/settle').send(body).expect(200)).body;
    assert.equal(settled.success, true, JSON.stringify(settled));
    assert.equal(settled.transaction, keccak256(raw));
    await assertMined(settled.transaction);
    assert.equal(await usdcBalance(payTo), 1000n);
  });

  it('a listing paid on chain carries the transactions in its settled provenance', async () => {
    const payTo = newWallet().address;
    const url = 'http://seller.test/chain-provenance';
    await h.container.catalog.writer.upsert(
      { type: 'http', resource: url, payment: { scheme: 'exact', network: NETWORK, asset: USDC, amount: '1000', payTo }, describe: { description: 'Tides by harbour' } },
      { source: 'announce' },
    );
    const id = httpListingId(url);
    await waitFor(async () => ((await request(h.app).get(`/discovery/resources/${id}`)).status === 200 ? true : undefined));
    const buyer = newWallet();
    await fundBuyer(buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(payTo), {}, { url, description: 'Tides by harbour', mimeType: 'application/json' });
    const settled = (await request(h.app).post('/settle').send(body).expect(200)).body;
    assert.equal(settled.success, true);
    const listing = await waitFor(async () => {
      const found = (await request(h.app).get(`/discovery/resources/${id}`).expect(200)).body;
      return found.provenance.settled?.lastTransaction ? found : undefined;
    });
    assert.equal(listing.provenance.settled.firstTransaction, settled.transaction);
    assert.equal(listing.provenance.settled.lastTransaction, settled.transaction);
  });

  it('the sponsor floor stops settlement with sponsor_below_floor before the account runs dry, and /metrics says so', async () => {
    // A facilitator key of its own holding just under the 0.01 ETH floor: any settlement's gas would cross it.
    const key = generatePrivateKey();
    await fundGas(privateKeyToAccount(key).address, 9_000_000_000_000_000n);
    const floored = await startHarness({ FACILITATOR_PRIVATE_KEY: key });
    try {
      const buyer = newWallet();
      const payTo = newWallet().address;
      await fundBuyer(buyer.address, 5000n);
      const body = await exactRequest(buyer, requirements(payTo));
      const verified = (await request(floored.app).post('/verify').send(body).expect(200)).body;
      assert.equal(verified.invalidReason, 'sponsor_below_floor');
      const settled = (await request(floored.app).post('/settle').send(body).expect(200)).body;
      assert.equal(settled.success, false);
      assert.equal(settled.errorReason, 'sponsor_below_floor');
      assert.match(settled.errorMessage, /SPONSOR_FLOOR_WEI/);
      assert.equal(await usdcBalance(payTo), 0n);
      const metrics = (await request(floored.app).get('/metrics').expect(200)).text;
      assert.match(metrics, /facilitator_sponsor_floor_stops_total\{network="eip155:84532"\} 2/);
      assert.match(metrics, /facilitator_sponsor_balance_eth\{network="eip155:84532"\} 0\.009\n/);
      // The alert a deployment watches (it replaces the ledger's sponsor_insufficient_funds test).
      assert.match(metrics, /facilitator_sponsor_below_floor\{network="eip155:84532"\} 1/);
    } finally {
      await floored.close();
    }
  });
});
