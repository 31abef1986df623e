/**
 * The facilitator settling `exact` and `upto` on a chain (issue 44; facilitator/chainRail.ts) over
 * the in-memory chain of fakes/chain.ts (its rules are listed there). The real adapter runs on the
 * dev node in test/facilitator-chain.test.ts and test/facilitator-upto-chain.test.ts.
 */
import assert from 'node:assert/strict';
import type { LocalAccount } from 'viem';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { ChainRail } from '../../src/facilitator/chainRail.js';
import { PayerLimit } from '../../src/facilitator/payerLimit.js';
import { FacilitatorService } from '../../src/facilitator/service.js';
import { exactRequest, NETWORK, newWallet, requirements, USDC, uptoRequest } from '../support/payments.js';
import { FAKE_ACCOUNT, FAKE_FEE, fakeChain, fakeSettlements } from './fakes/chain.js';

const FLOOR = 10n ** 16n;
const FEE = FAKE_FEE;
const ACCOUNT = FAKE_ACCOUNT;

function world() {
  const chain = fakeChain(NETWORK);
  const stops: string[] = [];
  const fees: bigint[] = [];
  const feeOnly: Array<{ payer: string; payee: string; feeWei: bigint }> = [];
  const rail = new ChainRail(chain.adapter, FLOOR, (network) => stops.push(network));
  const service = new FacilitatorService({
    config: { facilitatorAddress: ACCOUNT },
    chain: rail,
    settlements: fakeSettlements(),
    payerLimit: new PayerLimit(undefined, undefined),
    traffic: { settled: async () => ({ status: 'success' }), verified: async () => ({ status: 'success' }) } as never,
    sponsorship: {
      decide: async () => ({ sponsored: true, circular: false }),
      record: async (payment) => void fees.push(payment.feeWei),
      recordFee: async (payment) => void feeOnly.push({ payer: payment.payer, payee: payment.payee, feeWei: payment.feeWei }),
    },
    metrics: createMetrics({ defaultMetrics: false }),
    logger: createLogger('error', { silent: true }),
    clock: Date.now,
  });
  const verify = async (body: unknown) => (await service.verify(service.readVerify(body))).response;
  const settle = async (body: unknown) => (await service.settle(service.readSettle(body))).response;
  return { chain, service, verify, settle, stops, fees, feeOnly };
}

describe('unit: exact settled on a chain', () => {
  let buyer: LocalAccount;
  let seller: LocalAccount;
  beforeEach(() => {
    buyer = newWallet();
    seller = newWallet();
  });

  it('/supported names the facilitator account as signer', () => {
    assert.deepEqual(world().service.supported().signers, { 'eip155:*': [ACCOUNT] });
  });

  it('verify reads the chain: unfunded is insufficient funds (v2 and v1 names), a used authorization is refused', async () => {
    const { chain, verify, settle } = world();
    const body = await exactRequest(buyer, requirements(seller.address));
    assert.equal((await verify(body)).invalidReason, 'invalid_exact_evm_insufficient_balance');
    const v1 = { ...body, x402Version: 1, paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: body.paymentPayload.payload }, paymentRequirements: { ...body.paymentRequirements, network: 'base-sepolia', maxAmountRequired: body.paymentRequirements.amount } };
    assert.equal((await verify(v1)).invalidReason, 'insufficient_funds');
    chain.fund(buyer.address, 5000n);
    assert.deepEqual(await verify(body), { isValid: true, payer: buyer.address });
    assert.equal((await settle(body)).success, true);
    assert.equal((await verify(body)).invalidReason, 'invalid_exact_evm_nonce_already_used');
  });

  it('a simulation the chain refuses is the facilitator\'s refusal, not the payer\'s', async () => {
    const { chain, verify } = world();
    chain.fund(buyer.address, 5000n);
    chain.simulation = { ok: false, reason: 'invalid_exact_evm_transaction_simulation_failed' };
    const response = await verify(await exactRequest(buyer, requirements(seller.address)));
    assert.equal(response.invalidReason, 'invalid_exact_evm_transaction_simulation_failed');
  });

  it('settle returns the chain\'s transaction; a replay and concurrent duplicates answer with it and send nothing more', async () => {
    const { chain, settle, fees } = world();
    chain.fund(buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(seller.address));
    const answers = await Promise.all([settle(body), settle(body), settle(body)]);
    const again = await settle(body);
    assert.equal(chain.sends, 1);
    const hashes = new Set([...answers, again].filter((a) => a.success).map((a) => a.transaction));
    assert.equal(hashes.size, 1);
    assert.match([...hashes][0]!, /^0x[0-9a-f]{64}$/);
    assert.equal(chain.balance(buyer.address), 5000n - 1000n);
    assert.deepEqual(fees, [FEE]);
  });

  it('a pending transaction is named and not final; the retry reconciles it and sends nothing new', async () => {
    const { chain, settle } = world();
    chain.fund(buyer.address, 5000n);
    chain.pendingOnce = true;
    const body = await exactRequest(buyer, requirements(seller.address));
    const pending = await settle(body);
    assert.equal(pending.success, false);
    assert.equal(pending.errorReason, 'settlement_pending');
    assert.match(pending.transaction, /^0x[0-9a-f]{64}$/);
    const retried = await settle(body);
    assert.equal(retried.success, true);
    assert.equal(retried.transaction, pending.transaction);
    assert.equal(chain.sends, 1);
  });

  it('a transaction mined and reverted charges its payer and payee budgets the gas it burned, and records no payment', async () => {
    const { chain, settle, fees, feeOnly } = world();
    chain.fund(buyer.address, 5000n);
    chain.revertOnce = true;
    const body = await exactRequest(buyer, requirements(seller.address));
    const reverted = await settle(body);
    assert.equal(reverted.success, false);
    assert.equal(reverted.errorReason, 'invalid_exact_evm_transaction_failed');
    assert.deepEqual(feeOnly, [{ payer: buyer.address, payee: seller.address.toLowerCase(), feeWei: FEE / 2n }]);
    assert.deepEqual(fees, []);
    assert.equal(chain.balance(buyer.address), 5000n);
    // Not final: the retry verifies afresh and settles; its own gas is a normal sponsored payment.
    assert.equal((await settle(body)).success, true);
    assert.deepEqual(fees, [FEE]);
    assert.equal(feeOnly.length, 1);
  });

  it('the sponsor floor stops verify and settle with sponsor_below_floor before the account runs dry', async () => {
    const { chain, verify, settle, stops } = world();
    chain.fund(buyer.address, 5000n);
    chain.sponsor = FLOOR + FEE - 1n;
    const body = await exactRequest(buyer, requirements(seller.address));
    const verified = await verify(body);
    assert.equal(verified.invalidReason, 'sponsor_below_floor');
    const settled = await settle(body);
    assert.equal(settled.errorReason, 'sponsor_below_floor');
    assert.match(settled.errorMessage ?? '', /SPONSOR_FLOOR_WEI/);
    assert.equal(chain.sends, 0);
    assert.deepEqual(stops, [NETWORK, NETWORK]);
  });

});

describe('unit: upto settled on a chain', () => {
  let buyer: LocalAccount;
  let seller: LocalAccount;
  beforeEach(() => {
    buyer = newWallet();
    seller = newWallet();
  });
  const ceiling = () => requirements(seller.address, { scheme: 'upto', amount: '2000', extra: { facilitatorAddress: ACCOUNT } });

  it('settles the metered amount (<= the ceiling) on chain, once; the Permit2 nonce is then used', async () => {
    const { chain, settle, verify, fees } = world();
    chain.fund(buyer.address, 5000n);
    chain.approvePermit2(buyer.address, 10n ** 30n);
    const body = await uptoRequest(buyer, ceiling(), { facilitator: ACCOUNT });
    assert.deepEqual(await verify(body), { isValid: true, payer: buyer.address });
    const metered = { ...body, paymentRequirements: { ...ceiling(), amount: '700' } };
    const a = await settle(metered);
    const b = await settle(metered);
    assert.equal(a.success && b.success, true, JSON.stringify([a, b]));
    assert.equal(a.transaction, b.transaction);
    assert.equal(a.amount, '700');
    assert.equal(chain.sends, 1);
    assert.equal(chain.balance(buyer.address), 4300n);
    assert.deepEqual(fees, [FEE]);
    assert.equal((await verify(body)).invalidReason, 'permit2_invalid_nonce');
  });

  it('no Permit2 allowance is permit2_allowance_required; an unfunded payer permit2_insufficient_balance', async () => {
    const { chain, verify } = world();
    const body = await uptoRequest(buyer, ceiling(), { facilitator: ACCOUNT });
    assert.equal((await verify(body)).invalidReason, 'permit2_insufficient_balance');
    chain.fund(buyer.address, 5000n);
    const refused = await verify(body);
    assert.equal(refused.invalidReason, 'permit2_allowance_required');
    assert.match(refused.invalidMessage ?? '', /approve Permit2/);
    chain.approvePermit2(buyer.address, 2000n);
    assert.equal((await verify(body)).isValid, true);
  });

  it('above the ceiling is refused and 0 settles nothing, without sending', async () => {
    const { chain, settle } = world();
    chain.fund(buyer.address, 5000n);
    chain.approvePermit2(buyer.address, 10n ** 30n);
    const body = await uptoRequest(buyer, ceiling(), { facilitator: ACCOUNT });
    const above = await settle({ ...body, paymentRequirements: { ...ceiling(), amount: '2001' } });
    assert.equal(above.errorReason, 'invalid_upto_evm_payload_settlement_exceeds_amount');
    const zero = await settle({ ...body, paymentRequirements: { ...ceiling(), amount: '0' } });
    assert.deepEqual([zero.success, zero.transaction, zero.amount], [true, '', '0']);
    assert.equal(chain.sends, 0);
    assert.equal(chain.balance(buyer.address), 5000n);
  });
});

describe('unit: a chain node that does not answer', () => {
  it('verify and settle answer 503 (Unavailable), never a refusal: nothing was charged and the retry is safe', async () => {
    const { chain, service } = world();
    chain.state = async () => Promise.reject(new Error('fetch failed'));
    chain.settle = async () => Promise.reject(new Error('fetch failed'));
    const body = await exactRequest(newWallet(), requirements(newWallet().address));
    await assert.rejects(service.verify(service.readVerify(body)), (err: Error) => err.name === 'Unavailable' || /did not answer/.test(err.message));
    await assert.rejects(service.settle(service.readSettle(body)), /did not answer/);
  });
});
