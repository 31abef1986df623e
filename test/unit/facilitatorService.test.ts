import assert from 'node:assert/strict';
import type { LocalAccount } from 'viem';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { PayerLimit } from '../../src/facilitator/payerLimit.js';
import { FacilitatorService } from '../../src/facilitator/service.js';
import type { TrafficCataloger } from '../../src/facilitator/trafficCatalog.js';
import type { TrafficSighting } from '../../src/facilitator/trafficSighting.js';
import type { SignalRecorder } from '../../src/signals/counters.js';
import { exactRequest, FACILITATOR_ADDRESS, NETWORK, newWallet, requirements, USDC, uptoRequest } from '../support/payments.js';
import { manualClock } from './fakes/clock.js';
import { fakeLedger } from './fakes/ledger.js';

const FEE = 21_000_000_000_000n;

function world() {
  const money = fakeLedger();
  const recorded: Array<{ kind: 'verify' | 'settle'; listingId: string; payer: string; valid?: boolean; amount?: string }> = [];
  const signals: SignalRecorder = {
    recordVerify: async (listingId, payer, valid) => (recorded.push({ kind: 'verify', listingId, payer, valid }), true),
    recordSettle: async (listingId, payer, amount) => (recorded.push({ kind: 'settle', listingId, payer, ...(amount !== undefined ? { amount } : {}) }), true),
  };
  const cataloged: Array<{ event: 'settled' | 'verified'; sighting: TrafficSighting }> = [];
  const cataloger = {
    settled: async (sighting: TrafficSighting) => (cataloged.push({ event: 'settled', sighting }), { status: 'success' as const }),
    verified: async (sighting: TrafficSighting) => (cataloged.push({ event: 'verified', sighting }), { status: 'processing' as const }),
  } as unknown as TrafficCataloger;
  const service = new FacilitatorService({
    config: { facilitatorNetworks: [NETWORK], facilitatorAddress: FACILITATOR_ADDRESS, settlementFeeWei: FEE },
    ledger: money.ledger,
    settlements: money.settlements,
    payerLimit: new PayerLimit(undefined, undefined),
    signals,
    cataloger,
    metrics: createMetrics({ defaultMetrics: false }),
    logger: createLogger('error', { silent: true }),
    clock: manualClock(Date.now()).now,
  });
  const verify = (body: unknown) => service.verify(service.readVerify(body));
  const settle = (body: unknown) => service.settle(service.readSettle(body));
  /** Lets the best-effort signal counting (not awaited by the answer) run. */
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return { money, recorded, cataloged, service, verify, settle, settled };
}

describe('unit: the facilitator over an in-memory ledger', () => {
  let buyer: LocalAccount;
  let seller: LocalAccount;
  beforeEach(() => {
    buyer = newWallet();
    seller = newWallet();
  });

  it('/supported: exact and upto per network, v1 exact under the legacy name, this facilitator as signer', () => {
    const { kinds, signers } = world().service.supported();
    assert.deepEqual(kinds, [
      { x402Version: 2, scheme: 'exact', network: NETWORK },
      { x402Version: 2, scheme: 'upto', network: NETWORK, extra: { facilitatorAddress: FACILITATOR_ADDRESS } },
      { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
    ]);
    assert.deepEqual(signers, { 'eip155:*': [FACILITATOR_ADDRESS] });
  });

  it('verify: a funded buyer\'s payment is valid, counts, and asks the catalog for a probe; nothing moves', async () => {
    const { money, verify, recorded, cataloged, settled } = world();
    money.fund(NETWORK, USDC, buyer.address, 5000n);
    const { response } = await verify(await exactRequest(buyer, requirements(seller.address)));
    assert.deepEqual(response, { isValid: true, payer: buyer.address });
    await settled();
    assert.deepEqual(recorded.map((r) => [r.kind, r.valid]), [['verify', true]]);
    assert.deepEqual(cataloged.map((c) => c.event), ['verified']);
    assert.equal(money.balance(NETWORK, USDC, buyer.address), 5000n);
  });

  it('verify: an unfunded buyer is refused with the v2 name, and a fresh wallet\'s refusal does not count', async () => {
    const { verify, recorded, settled } = world();
    const { response } = await verify(await exactRequest(buyer, requirements(seller.address)));
    assert.equal(response.isValid, false);
    assert.equal(response.invalidReason, 'invalid_exact_evm_insufficient_balance');
    assert.equal(response.payer, buyer.address);
    await settled();
    assert.deepEqual(recorded, []);
  });

  it('verify: a funded wallet that signed bad terms counts as a rejection', async () => {
    const { money, verify, recorded, settled } = world();
    money.fund(NETWORK, USDC, buyer.address, 5000n);
    const { response } = await verify(await exactRequest(buyer, requirements(seller.address), { value: '1' }));
    assert.equal(response.invalidReason, 'invalid_exact_evm_payload_authorization_value_mismatch');
    await settled();
    assert.deepEqual(recorded.map((r) => [r.kind, r.valid]), [['verify', false]]);
  });

  it('settle moves the amount and the fee once; the same body again gets the same receipt and moves nothing', async () => {
    const { money, settle, recorded, settled } = world();
    money.fund(NETWORK, USDC, buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(seller.address));
    const first = await settle(body);
    assert.equal(first.response.success, true);
    assert.equal(first.response.amount, '1000');
    assert.match(first.response.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(money.balance(NETWORK, USDC, buyer.address), 4000n);
    assert.equal(money.balance(NETWORK, USDC, seller.address.toLowerCase()), 1000n);
    assert.equal(money.sponsor(NETWORK), 10n ** 18n - FEE);
    const again = await settle(body);
    assert.deepEqual(again.response, first.response);
    assert.equal(money.movements.length, 1);
    await settled();
    const counted = recorded.filter((r) => r.kind === 'settle');
    assert.equal(counted.length, 1, 'a replayed receipt is no new evidence');
    assert.equal(counted[0]!.payer, buyer.address);
    assert.equal(counted[0]!.amount, undefined, 'an exact price is the listing\'s price, not a sample of the median');
  });

  it('the settled payload presented with other requirements never gets the receipt', async () => {
    const { money, settle } = world();
    money.fund(NETWORK, USDC, buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(seller.address));
    await settle(body);
    const other = { ...body, paymentRequirements: { ...body.paymentRequirements, payTo: newWallet().address } };
    const { response } = await settle(other);
    assert.equal(response.success, false);
    assert.equal(response.errorReason, 'settlement_requirements_mismatch');
    assert.equal(money.movements.length, 1);
  });

  it('a nonce is spent once: another payload with the same nonce is refused', async () => {
    const { money, settle } = world();
    money.fund(NETWORK, USDC, buyer.address, 5000n);
    const nonce = `0x${'ab'.repeat(32)}` as const;
    await settle(await exactRequest(buyer, requirements(seller.address), { nonce }));
    const { response } = await settle(await exactRequest(buyer, requirements(seller.address), { nonce, value: '2000' }));
    assert.equal(response.errorReason, 'invalid_exact_evm_nonce_already_used');
    assert.equal(money.balance(NETWORK, USDC, buyer.address), 4000n);
  });

  it('a failed settlement is not stored: once the wallet is funded the same body settles', async () => {
    const { money, settle } = world();
    const body = await exactRequest(buyer, requirements(seller.address));
    assert.equal((await settle(body)).response.errorReason, 'invalid_exact_evm_insufficient_balance');
    money.fund(NETWORK, USDC, buyer.address, 1000n);
    assert.equal((await settle(body)).response.success, true);
  });

  it('a sponsor that cannot pay the fee refuses the settlement and charges nothing', async () => {
    const { money, settle } = world();
    money.fund(NETWORK, USDC, buyer.address, 5000n);
    money.setSponsor(NETWORK, FEE - 1n);
    const { response } = await settle(await exactRequest(buyer, requirements(seller.address)));
    assert.equal(response.errorReason, 'sponsor_insufficient_funds');
    assert.equal(money.balance(NETWORK, USDC, buyer.address), 5000n);
  });

  it('upto: settles the amount used, at most the ceiling, and reports it for the median; nothing used moves nothing', async () => {
    const { money, settle, recorded, settled } = world();
    money.fund(NETWORK, USDC, buyer.address, 10_000n);
    const ceiling = requirements(seller.address, { amount: '5000' });
    const used = await uptoRequest(buyer, ceiling);
    const charged = { ...used, paymentRequirements: { ...used.paymentRequirements, amount: '1234' } };
    assert.equal((await settle(charged)).response.amount, '1234');
    assert.equal(money.balance(NETWORK, USDC, buyer.address), 10_000n - 1234n);
    const nothing = await uptoRequest(buyer, ceiling);
    const zero = await settle({ ...nothing, paymentRequirements: { ...nothing.paymentRequirements, amount: '0' } });
    assert.deepEqual([zero.response.success, zero.response.amount, zero.response.transaction], [true, '0', '']);
    assert.equal(money.movements.length, 1);
    await settled();
    assert.deepEqual(recorded.filter((r) => r.kind === 'settle').map((r) => r.amount), ['1234']);
  });

  it('a refused payment carrying discovery metadata tells the seller the catalog listed nothing', async () => {
    const { verify, cataloged } = world();
    const body = await exactRequest(buyer, requirements(seller.address));
    const withBazaar = { ...body, paymentPayload: { ...body.paymentPayload, extensions: { bazaar: { info: { input: { method: 'GET' } } } } } };
    const { bazaar } = await verify(withBazaar);
    assert.equal(bazaar?.status, 'rejected');
    assert.match(bazaar?.rejectedReason ?? '', /refused \(invalid_exact_evm_insufficient_balance\)/);
    assert.deepEqual(cataloged, []);
  });
});
