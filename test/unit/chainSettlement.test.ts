/**
 * The facilitator settling `exact` and `upto` on a chain (issue 44; facilitator/chainRail.ts) over
 * a fake of store/evm/chainAdapter.ts with the chain's rules: a token balance per payer, Permit2
 * allowances, an authorization used once (its first transaction is the one every retry answers
 * with), the facilitator account's native balance paying each settlement's gas, a reverted
 * transaction's gas too. The real adapter runs on the dev node in test/facilitator-chain.test.ts
 * and test/facilitator-upto-chain.test.ts.
 */
import assert from 'node:assert/strict';
import type { LocalAccount } from 'viem';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { ChainRail } from '../../src/facilitator/chainRail.js';
import { PayerLimit } from '../../src/facilitator/payerLimit.js';
import { FacilitatorService } from '../../src/facilitator/service.js';
import type { ChainAdapter, ChainPayment, ChainSettlement } from '../../src/store/evm/chainAdapter.js';
import { exactRequest, NETWORK, newWallet, requirements, USDC, uptoRequest } from '../support/payments.js';
import { fakeLedger } from './fakes/ledger.js';

const FLOOR = 10n ** 16n;
const FEE = 90_000n * 1_000_000_000n;
const ACCOUNT = '0x00000000000000000000000000000000000000Fa';

const fromOf = (p: ChainPayment) => (p.kind === 'eip3009' ? p.authorization.from : p.permit2Authorization.from).toLowerCase();
const keyOf = (p: ChainPayment) => (p.kind === 'eip3009' ? `3009:${p.authorization.nonce}` : `permit2:${fromOf(p)}:${p.permit2Authorization.nonce}`);
const amountOf = (p: ChainPayment) => BigInt(p.kind === 'eip3009' ? p.authorization.value : p.amount);

function fakeChain() {
  const balances = new Map<string, bigint>();
  const allowances = new Map<string, bigint>();
  const used = new Map<string, string>();
  const chain = {
    sponsor: 10n ** 18n,
    sends: 0,
    /** The next settle answers `settlement_pending` (a receipt that did not come in time). */
    pendingOnce: false,
    /** The next settle's transaction is mined and reverts: its gas is paid, nothing moves. */
    revertOnce: false,
    simulation: { ok: true } as { ok: true } | { ok: false; reason: string },
    address: ACCOUNT,
    networks: () => [NETWORK],
    key: keyOf,
    state: async (p: ChainPayment) => ({
      balance: balances.get(fromOf(p)) ?? 0n,
      nonceUsed: used.has(keyOf(p)),
      ...(p.kind === 'permit2-upto' ? { allowance: allowances.get(fromOf(p)) ?? 0n } : {}),
    }),
    simulate: async () => chain.simulation,
    sponsorBalance: async () => chain.sponsor,
    feeEstimate: async () => FEE,
    journaled: async (key: string) => used.get(key),
    settle: async (p: ChainPayment): Promise<ChainSettlement> => {
      const first = used.get(keyOf(p));
      if (first) return { ok: true, transaction: first as `0x${string}`, feeWei: 0n };
      chain.sends += 1;
      const transaction = `0x${chain.sends.toString(16).padStart(64, '0')}`;
      if (chain.revertOnce) {
        chain.revertOnce = false;
        chain.sponsor -= FEE / 2n;
        return { ok: false, reason: 'invalid_exact_evm_transaction_failed', message: 'reverted', transaction, feeWei: FEE / 2n };
      }
      used.set(keyOf(p), transaction);
      if (chain.pendingOnce) {
        chain.pendingOnce = false;
        return { ok: false, reason: 'settlement_pending', message: 'timed out', transaction, feeWei: 0n };
      }
      const from = fromOf(p);
      balances.set(from, (balances.get(from) ?? 0n) - amountOf(p));
      chain.sponsor -= FEE;
      return { ok: true, transaction: transaction as `0x${string}`, feeWei: FEE };
    },
    fund: (address: string, amount: bigint) => balances.set(address.toLowerCase(), amount),
    approvePermit2: (address: string, amount: bigint) => allowances.set(address.toLowerCase(), amount),
    balance: (address: string) => balances.get(address.toLowerCase()) ?? 0n,
  };
  return chain;
}

function world() {
  const chain = fakeChain();
  const money = fakeLedger();
  const stops: string[] = [];
  const fees: bigint[] = [];
  const feeOnly: Array<{ payer: string; payee: string; feeWei: bigint }> = [];
  const rail = new ChainRail(chain as unknown as ChainAdapter, FLOOR, (network) => stops.push(network));
  const service = new FacilitatorService({
    config: { facilitatorNetworks: [NETWORK], facilitatorAddress: ACCOUNT, settlementFeeWei: 21_000_000_000_000n },
    ledger: money.ledger,
    chain: rail,
    settlements: money.settlements,
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
  return { chain, money, service, verify, settle, stops, fees, feeOnly };
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
