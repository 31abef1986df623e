/**
 * Issue 44: `upto` settled on the dev chain, with the real node, Permit2 and x402's upto proxy, the
 * unmodified @x402/express seller and @x402/fetch buyer (@x402/evm's upto client), and the
 * service's facilitator key. The buyer's one prerequisite is its Permit2 approval (which costs it
 * gas); the settled amount is what the seller metered, at most the signed ceiling.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import express from 'express';
import request from 'supertest';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { UptoEvmScheme } from '@x402/evm/upto/client';
import { UptoEvmScheme as UptoEvmServer } from '@x402/evm/upto/server';
import { paymentMiddleware, setSettlementOverrides, x402ResourceServer } from '@x402/express';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { createWalletClient, erc20Abi, http, maxUint256, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startHarness, type Harness } from './support/harness.js';
import { NETWORK, newWallet, requirements, USDC, uptoRequest } from './support/payments.js';
import { CHAIN_RPC_URL, chainClient, DEV_FACILITATOR_KEY, fundBuyer, fundGas, mineBlock, requireDevChain, setAutomine, usdcBalance } from './support/chainFunding.js';
import { SponsorLedger } from '../src/store/redis/sponsorLedger.js';
import { PERMIT2_ADDRESS } from '../src/facilitator/uptoScheme.js';
import { close, listen } from './support/listen.js';

const FACILITATOR = privateKeyToAccount(DEV_FACILITATOR_KEY).address;

/** A buyer holding `usdc` test USDC, and (unless told not to) its Permit2 approval, paid with its own gas. */
async function buyer(usdc: bigint, approve = true): Promise<LocalAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await fundBuyer(account.address, usdc);
  if (approve) {
    await fundGas(account.address, 10n ** 16n);
    await chainClient.waitForTransactionReceipt({ hash: await approvePermit2(account, maxUint256) });
  }
  return account;
}

/** The buyer's own approval transaction (not awaited); `tip` puts it ahead of others in the next block. */
function approvePermit2(account: LocalAccount, amount: bigint, tip?: bigint): Promise<`0x${string}`> {
  const wallet = createWalletClient({ account, chain: chainClient.chain, transport: http(CHAIN_RPC_URL) });
  const fees = tip ? { maxPriorityFeePerGas: tip, maxFeePerGas: tip * 2n } : {};
  return wallet.writeContract({ address: USDC as `0x${string}`, abi: erc20Abi, functionName: 'approve', args: [PERMIT2_ADDRESS, amount], chain: chainClient.chain, ...fees });
}

async function minedByFacilitator(hash: string): Promise<void> {
  const receipt = await chainClient.getTransactionReceipt({ hash: hash as `0x${string}` });
  assert.equal(receipt.status, 'success');
  assert.equal(receipt.from.toLowerCase(), FACILITATOR.toLowerCase());
}

describe('facilitator: upto settled on the dev chain (issue 44)', function () {
  this.timeout(60_000);
  let h: Harness;
  let facilitator: Server;
  let facilitatorUrl: string;
  let seller: Server | undefined;
  const ceiling = (payTo: string, amount = '2000') => requirements(payTo, { scheme: 'upto', amount, extra: { facilitatorAddress: FACILITATOR } });

  before(async function () {
    await requireDevChain();
    h = await startHarness({ FACILITATOR_PRIVATE_KEY: DEV_FACILITATOR_KEY, CHAIN_RPC_URL });
    ({ server: facilitator, url: facilitatorUrl } = await listen(h.app));
  });
  afterEach(async () => close(seller));
  after(async () => {
    await close(facilitator);
    await h?.close();
  });

  it('an @x402/express upto seller paid by an @x402/fetch buyer receives the metered amount on chain, in a mined transaction', async () => {
    const payTo = newWallet().address;
    const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(NETWORK, new UptoEvmServer());
    const app = express();
    app.use(paymentMiddleware({ 'GET /complete': { accepts: { scheme: 'upto', price: '$0.01', network: NETWORK, payTo }, description: 'Metered completion' } }, resourceServer));
    app.get('/complete', (_req, res) => {
      setSettlementOverrides(res, { amount: '2500' });
      res.json({ text: 'hello' });
    });
    const started = await listen(app);
    seller = started.server;
    const account = await buyer(1_000_000n);
    const client = new x402Client();
    client.register(NETWORK, new UptoEvmScheme(account));
    const res = await wrapFetchWithPayment(fetch, client)(`${started.url}/complete`);
    assert.equal(res.status, 200, await res.clone().text());
    const settled = JSON.parse(Buffer.from(res.headers.get('payment-response')!, 'base64').toString('utf8')) as { success: boolean; transaction: string };
    assert.equal(settled.success, true);
    await minedByFacilitator(settled.transaction);
    assert.equal(await usdcBalance(payTo), 2500n);
    assert.equal(await usdcBalance(account.address), 997_500n);
  });

  it('replays and concurrent duplicates settle once: one transaction, one transfer; the Permit2 nonce is then used', async () => {
    const payer = await buyer(5000n);
    const payTo = newWallet().address;
    const body = await uptoRequest(payer, ceiling(payTo), { facilitator: FACILITATOR });
    assert.deepEqual((await request(h.app).post('/verify').send(body).expect(200)).body, { isValid: true, payer: payer.address });
    const metered = { ...body, paymentRequirements: { ...ceiling(payTo), amount: '700' } };
    const answers = await Promise.all(Array.from({ length: 4 }, () => request(h.app).post('/settle').send(metered)));
    const replay = await request(h.app).post('/settle').send(metered);
    const all = [...answers, replay].map((a) => a.body);
    assert.ok(all.every((a) => a.success === true && a.amount === '700'), JSON.stringify(all));
    assert.equal(new Set(all.map((a) => a.transaction)).size, 1);
    await minedByFacilitator(all[0].transaction);
    assert.equal(await usdcBalance(payTo), 700n);
    assert.equal(await usdcBalance(payer.address), 4300n);
    assert.equal((await request(h.app).post('/verify').send(body).expect(200)).body.invalidReason, 'permit2_invalid_nonce');
  });

  it('no Permit2 allowance is permit2_allowance_required, an unfunded buyer permit2_insufficient_balance, read from the chain', async () => {
    const payTo = newWallet().address;
    const unapproved = await buyer(5000n, false);
    const body = await uptoRequest(unapproved, ceiling(payTo), { facilitator: FACILITATOR });
    const refused = (await request(h.app).post('/verify').send(body).expect(200)).body;
    assert.equal(refused.invalidReason, 'permit2_allowance_required', JSON.stringify(refused));
    const settled = (await request(h.app).post('/settle').send(body).expect(200)).body;
    assert.equal(settled.success, false);
    assert.equal(settled.errorReason, 'permit2_allowance_required', JSON.stringify(settled));
    const unfunded = await uptoRequest(newWallet(), ceiling(payTo), { facilitator: FACILITATOR });
    assert.equal((await request(h.app).post('/verify').send(unfunded).expect(200)).body.invalidReason, 'permit2_insufficient_balance');
    assert.equal(await usdcBalance(payTo), 0n);
  });

  it('a settlement mined and reverted: its real gas is charged to the payer\'s and payee\'s sponsor budgets, nothing moved, and the retry does not send again', async () => {
    const slow = await startHarness({ FACILITATOR_PRIVATE_KEY: DEV_FACILITATOR_KEY, CHAIN_RPC_URL, CHAIN_RECEIPT_TIMEOUT_MS: '1000' });
    try {
      const payer = await buyer(5000n);
      const payTo = newWallet().address;
      const body = await uptoRequest(payer, ceiling(payTo), { facilitator: FACILITATOR });
      await setAutomine(false);
      const pending = (await request(slow.app).post('/settle').send(body).expect(200)).body;
      assert.equal(pending.errorReason, 'settlement_pending', JSON.stringify(pending));
      // The buyer revokes Permit2 in the same block, ahead of the settlement: the proxy's transfer reverts.
      await approvePermit2(payer, 0n, 100_000_000_000n);
      await mineBlock();
      await setAutomine(true);
      const receipt = await chainClient.getTransactionReceipt({ hash: pending.transaction });
      assert.equal(receipt.status, 'reverted');
      const reverted = (await request(slow.app).post('/settle').send(body).expect(200)).body;
      assert.equal(reverted.success, false);
      assert.equal(reverted.errorReason, 'invalid_upto_evm_transaction_failed', JSON.stringify(reverted));
      assert.equal(reverted.transaction, pending.transaction);
      const day = Math.floor(Date.now() / 86_400_000);
      const sponsor = new SponsorLedger(slow.redis, slow.config.redisPrefix);
      const gas = Number(receipt.gasUsed * receipt.effectiveGasPrice);
      assert.deepEqual(await sponsor.top('payer', day, 5), [{ address: payer.address.toLowerCase(), wei: gas }]);
      assert.deepEqual(await sponsor.top('payee', day, 5), [{ address: payTo.toLowerCase(), wei: gas }]);
      assert.equal(await usdcBalance(payTo), 0n);
      // The journal forgot the dead transaction: the retry verifies afresh against the chain and sends nothing.
      const nonce = await chainClient.getTransactionCount({ address: FACILITATOR });
      const again = (await request(slow.app).post('/settle').send(body).expect(200)).body;
      assert.equal(again.errorReason, 'permit2_allowance_required', JSON.stringify(again));
      assert.equal(await chainClient.getTransactionCount({ address: FACILITATOR }), nonce);
      assert.equal((await sponsor.top('payer', day, 5))[0]!.wei, gas);
    } finally {
      await setAutomine(true);
      await slow.close();
    }
  });

  it('another permit with a used Permit2 nonce (to another seller) is refused as such, not answered with the first transaction', async () => {
    const payer = await buyer(10_000n);
    const [first, second] = [newWallet().address, newWallet().address];
    const nonce = BigInt(`0x${'5a'.repeat(16)}`).toString();
    const paid = (await request(h.app).post('/settle').send(await uptoRequest(payer, ceiling(first), { facilitator: FACILITATOR, nonce })).expect(200)).body;
    assert.equal(paid.success, true, JSON.stringify(paid));
    const reused = (await request(h.app).post('/settle').send(await uptoRequest(payer, ceiling(second), { facilitator: FACILITATOR, nonce })).expect(200)).body;
    assert.equal(reused.success, false, JSON.stringify(reused));
    assert.equal(reused.errorReason, 'permit2_invalid_nonce');
    assert.notEqual(reused.transaction, paid.transaction);
    assert.equal(await usdcBalance(second), 0n);
    assert.equal(await usdcBalance(first), 2000n);
  });

  it('an amount above the ceiling is refused and a settle of 0 moves nothing; the permit still settles afterwards', async () => {
    const payer = await buyer(5000n);
    const payTo = newWallet().address;
    const body = await uptoRequest(payer, ceiling(payTo), { facilitator: FACILITATOR });
    const above = (await request(h.app).post('/settle').send({ ...body, paymentRequirements: { ...ceiling(payTo), amount: '2001' } }).expect(200)).body;
    assert.equal(above.errorReason, 'invalid_upto_evm_payload_settlement_exceeds_amount');
    const zero = (await request(h.app).post('/settle').send({ ...body, paymentRequirements: { ...ceiling(payTo), amount: '0' } }).expect(200)).body;
    assert.deepEqual([zero.success, zero.transaction, zero.amount], [true, '', '0']);
    assert.equal(await usdcBalance(payTo), 0n);
    const all = (await request(h.app).post('/settle').send(body).expect(200)).body;
    assert.equal(all.success, true, JSON.stringify(all));
    assert.equal(await usdcBalance(payTo), 2000n);
  });
});
