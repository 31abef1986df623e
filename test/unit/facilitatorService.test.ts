import assert from 'node:assert/strict';
import type { LocalAccount } from 'viem';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { PayerLimit } from '../../src/facilitator/payerLimit.js';
import { FacilitatorService } from '../../src/facilitator/service.js';
import { TrafficCataloger } from '../../src/facilitator/trafficCatalog.js';
import { TrafficCredit } from '../../src/facilitator/trafficCredit.js';
import type { Sponsorship } from '../../src/facilitator/sponsorship.js';
import type { SignalRecorder } from '../../src/signals/counters.js';
import type { PendingCredit } from '../../src/store/redis/pendingCredits.js';
import { exactRequest, FACILITATOR_ADDRESS, NETWORK, newWallet, RESOURCE, requirements, USDC, uptoRequest } from '../support/payments.js';
import { manualClock } from './fakes/clock.js';
import { FAKE_ACCOUNT, FAKE_FEE, fakeChain, fakeSettlements } from './fakes/chain.js';
import { ChainRail } from '../../src/facilitator/chainRail.js';
import { fakeCatalogWriter } from './fakes/catalogWriter.js';

/**
 * The service over an in-memory chain (fakes/chain.ts) and catalog, with the real crediting
 * (trafficCredit.ts): a payment counts only for a listing whose options name its payTo (`list()`
 * writes one for RESOURCE).
 */
function world(sponsorship: (payment: { amount: bigint }) => Sponsorship = () => ({ sponsored: true, circular: false })) {
  const chain = fakeChain(NETWORK);
  const recorded: Array<{ kind: 'verify' | 'settle'; listingId: string; payer: string; valid?: boolean; amount?: string }> = [];
  const signals: SignalRecorder = {
    recordVerify: async (listingId, payer, valid) => (recorded.push({ kind: 'verify', listingId, payer, valid }), true),
    recordSettle: async (listingId, payer, amount) => (recorded.push({ kind: 'settle', listingId, payer, ...(amount !== undefined ? { amount } : {}) }), true),
  };
  const writer = fakeCatalogWriter();
  const probed: string[] = [];
  const pending: PendingCredit[] = [];
  const logger = createLogger('error', { silent: true });
  const clock = manualClock(Date.now()).now;
  const cataloger = new TrafficCataloger({ writer: () => writer, logger, refreshMs: 60_000, probes: { announce: async (body) => void probed.push(`${body.method} ${body.resource}`) } });
  const traffic = new TrafficCredit({
    reader: { get: async (id) => writer.documents.get(id), getMany: async () => new Map() },
    signals,
    pending: { add: async (_id, credit) => void pending.push(credit) },
    resolver: { credit: async () => undefined },
    cataloger,
    logger,
    clock,
  });
  const sponsored: Array<{ amount: bigint; circular: boolean }> = [];
  const service = new FacilitatorService({
    config: { facilitatorAddress: FAKE_ACCOUNT },
    chain: new ChainRail(chain.adapter, 0n, () => undefined),
    settlements: fakeSettlements(),
    payerLimit: new PayerLimit(undefined, undefined),
    traffic,
    sponsorship: { decide: async (payment) => sponsorship(payment), record: async (payment, circular) => void sponsored.push({ amount: payment.amount, circular }), recordFee: async () => undefined },
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    clock,
  });
  /** Lists RESOURCE, paid to `payTo` (what a probe of its 402 would write). */
  const list = (payTo: string, options: { amount?: string; scheme?: 'exact' | 'upto' } = {}) =>
    writer.upsert({ type: 'http', resource: RESOURCE.url, payment: { scheme: options.scheme ?? 'exact', network: NETWORK, asset: USDC, amount: options.amount ?? '1000', payTo } }, { source: 'announce' });
  const cataloged = { probed, pending, writes: writer.calls };
  const verify = (body: unknown) => service.verify(service.readVerify(body));
  const settle = (body: unknown) => service.settle(service.readSettle(body));
  /** Lets the best-effort signal counting (not awaited by the answer) run. */
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return { chain, recorded, cataloged, service, verify, settle, settled, list, sponsored };
}

describe('unit: the facilitator over an in-memory chain', () => {
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
      { x402Version: 2, scheme: 'upto', network: NETWORK, extra: { facilitatorAddress: FAKE_ACCOUNT } },
      { x402Version: 1, scheme: 'exact', network: 'base-sepolia' },
    ]);
    assert.deepEqual(signers, { 'eip155:*': [FAKE_ACCOUNT] });
  });

  it('without a facilitator key no network is offered: /supported lists nothing, requests get the unsupported-network refusal', async () => {
    const keyless = new FacilitatorService({
      config: { facilitatorAddress: FAKE_ACCOUNT },
      settlements: fakeSettlements(),
      payerLimit: new PayerLimit(undefined, undefined),
      traffic: { settled: async () => ({ status: 'success' }), verified: async () => ({ status: 'success' }) } as never,
      sponsorship: { decide: async () => ({ sponsored: true, circular: false }), record: async () => undefined, recordFee: async () => undefined },
      metrics: createMetrics({ defaultMetrics: false }),
      logger: createLogger('error', { silent: true }),
      clock: Date.now,
    });
    assert.deepEqual(keyless.supported().kinds, []);
    assert.deepEqual(keyless.supported().signers, {});
    const body = await exactRequest(buyer, requirements(seller.address));
    const verified = (await keyless.verify(keyless.readVerify(body))).response;
    assert.equal(verified.invalidReason, 'invalid_network');
    assert.match(verified.invalidMessage ?? '', /is not settled here/);
    const settled = (await keyless.settle(keyless.readSettle(body))).response;
    assert.deepEqual([settled.success, settled.errorReason], [false, 'invalid_network']);
  });

  it('verify: a funded buyer\'s payment is valid; unlisted, it asks for a probe (GET) and counts nowhere; nothing moves', async () => {
    const { chain, verify, recorded, cataloged, settled } = world();
    chain.fund(buyer.address, 5000n);
    const { response } = await verify(await exactRequest(buyer, requirements(seller.address)));
    assert.deepEqual(response, { isValid: true, payer: buyer.address });
    await settled();
    assert.deepEqual(recorded, []);
    assert.deepEqual(cataloged.probed, [`GET ${RESOURCE.url}`]);
    assert.equal(chain.balance(buyer.address), 5000n);
  });

  it('verify: a payment to the listing\'s seller counts; one to anybody else, naming the same resource, does not', async () => {
    const { chain, verify, recorded, settled, list } = world();
    await list(seller.address);
    chain.fund(buyer.address, 5000n);
    assert.equal((await verify(await exactRequest(buyer, requirements(seller.address)))).response.isValid, true);
    assert.equal((await verify(await exactRequest(buyer, requirements(newWallet().address)))).response.isValid, true);
    await settled();
    assert.deepEqual(recorded.map((r) => [r.kind, r.valid]), [['verify', true]]);
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

  it('verify: a funded wallet that signed bad terms for the listing\'s seller counts as a rejection', async () => {
    const { chain, verify, recorded, settled, list } = world();
    await list(seller.address);
    chain.fund(buyer.address, 5000n);
    const { response } = await verify(await exactRequest(buyer, requirements(seller.address), { value: '1' }));
    assert.equal(response.invalidReason, 'invalid_exact_evm_payload_authorization_value_mismatch');
    await settled();
    assert.deepEqual(recorded.map((r) => [r.kind, r.valid]), [['verify', false]]);
  });

  it('settle moves the amount and the fee once; the same body again gets the same receipt and moves nothing', async () => {
    const { chain, settle, recorded, settled, list, sponsored } = world();
    await list(seller.address);
    chain.fund(buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(seller.address));
    const first = await settle(body);
    assert.equal(first.response.success, true);
    assert.equal(first.response.amount, '1000');
    assert.match(first.response.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(chain.balance(buyer.address), 4000n);
    assert.equal(chain.balance(seller.address), 1000n);
    assert.equal(chain.sponsor, 10n ** 18n - FAKE_FEE);
    assert.equal(chain.sends, 1);
    const again = await settle(body);
    assert.deepEqual(again.response, first.response);
    assert.equal(chain.movements.length, 1);
    await settled();
    const counted = recorded.filter((r) => r.kind === 'settle');
    assert.equal(counted.length, 1, 'a replayed receipt is no new evidence');
    assert.equal(counted[0]!.payer, buyer.address);
    assert.equal(counted[0]!.amount, undefined, 'an exact price is the listing\'s price, not a sample of the median');
    assert.deepEqual(sponsored, [{ amount: 1000n, circular: false }], 'the sponsorship is recorded once, for what moved');
  });

  it('settle: a payment to somebody else naming a listed resource settles, counts nothing and says why', async () => {
    const { chain, settle, recorded, settled, list, cataloged } = world();
    await list(seller.address);
    chain.fund(buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(newWallet().address));
    const withBazaar = { ...body, paymentPayload: { ...body.paymentPayload, extensions: { bazaar: { info: { input: { method: 'GET' } } } } } };
    const { response, bazaar } = await settle(withBazaar);
    assert.equal(response.success, true);
    assert.equal(bazaar?.status, 'rejected');
    assert.match(bazaar?.rejectedReason ?? '', /does not name as payTo/);
    // Below the price, to the right payTo: settled, not counted either.
    const cheap = await settle(await exactRequest(buyer, requirements(seller.address, { amount: '999' })));
    assert.equal(cheap.response.success, true);
    await settled();
    assert.deepEqual(recorded, []);
    assert.deepEqual(cataloged.writes.filter((w) => w.op !== 'upsert'), [], 'nothing touched either');
  });

  it('settle: an unlisted resource gets a probe and its settlement waits for it; a circular one waits for nothing', async () => {
    const { chain, settle, cataloged } = world(() => ({ sponsored: true, circular: true }));
    chain.fund(buyer.address, 5000n);
    assert.equal((await settle(await exactRequest(buyer, requirements(seller.address)))).response.success, true);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(cataloged.probed, [`GET ${RESOURCE.url}`]);
    assert.deepEqual(cataloged.pending, []);
    const again = world();
    again.chain.fund(buyer.address, 5000n);
    await again.settle(await exactRequest(buyer, requirements(seller.address)));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(again.cataloged.pending.map((p) => [p.payTo, p.amount]), [[seller.address.toLowerCase(), '1000']]);
    assert.deepEqual(again.cataloged.writes.filter((w) => w.op === 'upsert'), [], 'traffic wrote no listing');
  });

  it('settle and verify: what the sponsorship policy declines is refused with sponsorship_declined and charges nothing', async () => {
    const { chain, settle, verify } = world((payment) => (payment.amount < 100n ? { sponsored: false, reason: 'below_minimum', message: 'too small' } : { sponsored: true, circular: false }));
    chain.fund(buyer.address, 5000n);
    const small = await exactRequest(buyer, requirements(seller.address, { amount: '5' }));
    assert.equal((await verify(small)).response.invalidReason, 'sponsorship_declined');
    const refused = await settle(small);
    assert.equal(refused.response.errorReason, 'sponsorship_declined');
    assert.equal(chain.balance(buyer.address), 5000n);
    assert.equal(chain.movements.length, 0);
  });

  it('the settled payload presented with other requirements never gets the receipt', async () => {
    const { chain, settle } = world();
    chain.fund(buyer.address, 5000n);
    const body = await exactRequest(buyer, requirements(seller.address));
    await settle(body);
    const other = { ...body, paymentRequirements: { ...body.paymentRequirements, payTo: newWallet().address } };
    const { response } = await settle(other);
    assert.equal(response.success, false);
    assert.equal(response.errorReason, 'settlement_requirements_mismatch');
    assert.equal(chain.movements.length, 1);
  });

  it('a nonce is spent once: another payload with the same nonce is refused', async () => {
    const { chain, settle } = world();
    chain.fund(buyer.address, 5000n);
    const nonce = `0x${'ab'.repeat(32)}` as const;
    await settle(await exactRequest(buyer, requirements(seller.address), { nonce }));
    const { response } = await settle(await exactRequest(buyer, requirements(seller.address), { nonce, value: '2000' }));
    assert.equal(response.errorReason, 'invalid_exact_evm_nonce_already_used');
    assert.equal(chain.balance(buyer.address), 4000n);
  });

  it('a failed settlement is not stored: once the wallet is funded the same body settles', async () => {
    const { chain, settle } = world();
    const body = await exactRequest(buyer, requirements(seller.address));
    assert.equal((await settle(body)).response.errorReason, 'invalid_exact_evm_insufficient_balance');
    chain.fund(buyer.address, 1000n);
    assert.equal((await settle(body)).response.success, true);
  });

  it('upto: settles the amount used, at most the ceiling, and reports it for the median; nothing used moves nothing', async () => {
    const { chain, settle, recorded, settled, list } = world();
    await list(seller.address, { scheme: 'upto', amount: '5000' });
    chain.fund(buyer.address, 10_000n);
    chain.approvePermit2(buyer.address, 10n ** 30n);
    const ceiling = requirements(seller.address, { amount: '5000' });
    const used = await uptoRequest(buyer, ceiling, { facilitator: FAKE_ACCOUNT });
    const charged = { ...used, paymentRequirements: { ...used.paymentRequirements, amount: '1234' } };
    assert.equal((await settle(charged)).response.amount, '1234');
    assert.equal(chain.balance(buyer.address), 10_000n - 1234n);
    const nothing = await uptoRequest(buyer, ceiling, { facilitator: FAKE_ACCOUNT });
    const zero = await settle({ ...nothing, paymentRequirements: { ...nothing.paymentRequirements, amount: '0' } });
    assert.deepEqual([zero.response.success, zero.response.amount, zero.response.transaction], [true, '0', '']);
    assert.equal(chain.movements.length, 1);
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
    assert.deepEqual(cataloged.probed, []);
  });
});
