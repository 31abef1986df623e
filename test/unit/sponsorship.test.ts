/**
 * The fee sponsor's policy (src/facilitator/sponsorship.ts) over a fake of its Redis ledger: what it
 * asks the ledger and what it answers. The ledger's own scripts (budgets, circles) run against real
 * Redis in test/sponsorship.test.ts.
 */
import assert from 'node:assert/strict';
import type { SponsorshipSettings } from '../../src/config/sponsorshipSettings.js';
import { SponsorshipPolicy } from '../../src/facilitator/sponsorship.js';
import type { SponsorCheck, SponsorVerdict } from '../../src/store/redis/sponsorLedger.js';

const FEE = 21_000_000_000_000n;
const settings: SponsorshipSettings = {
  minAmount: 100n,
  payerBudgetWei: FEE * 1000n,
  payeeBudgetWei: FEE * 10_000n,
  circularWindowMs: 86_400_000,
  circularAllowance: 3,
  reserveWei: 2n * 10n ** 17n,
  reserveShare: 0.05,
};

function policy(balance: bigint, verdict: SponsorVerdict = 'ok', circular = false) {
  const checks: SponsorCheck[] = [];
  const records: unknown[] = [];
  const p = new SponsorshipPolicy(
    settings,
    { check: async (c) => (checks.push(c), { verdict, circular }), record: async (r) => void records.push(r), recordFee: async (r) => void records.push({ feeOnly: r }) },
    async () => balance,
    () => 1_700_000_000_000,
  );
  return { p, checks, records };
}
const payment = (amount: bigint) => ({ payer: '0xA', payee: '0xB', network: 'eip155:84532', amount, feeWei: FEE });

describe('unit: the fee sponsor\'s policy', () => {
  it('never sponsors less than the minimum, nor nothing at all, without asking the ledger', async () => {
    const { p, checks } = policy(10n ** 18n);
    const small = await p.decide(payment(99n));
    assert.equal(small.sponsored, false);
    assert.equal((small as { reason: string }).reason, 'below_minimum');
    assert.match((small as { message: string }).message, /100 base units/);
    const zero = new SponsorshipPolicy({ ...settings, minAmount: 0n }, { check: async () => ({ verdict: 'ok', circular: false }), record: async () => undefined, recordFee: async () => undefined }, async () => 10n ** 18n, Date.now);
    assert.equal((await zero.decide(payment(0n))).sponsored, false);
    assert.deepEqual(checks, []);
    assert.equal((await p.decide(payment(100n))).sponsored, true);
  });

  it('asks with the full budgets and the fee; a circular payment within the allowance is sponsored and says so', async () => {
    const { p, checks } = policy(10n ** 18n, 'ok', true);
    assert.deepEqual(await p.decide(payment(1000n)), { sponsored: true, circular: true });
    assert.equal(checks[0]!.payerBudgetWei, settings.payerBudgetWei);
    assert.equal(checks[0]!.feeWei, FEE);
    assert.equal(checks[0]!.reserve, false);
    assert.equal(checks[0]!.day, Math.floor(1_700_000_000_000 / 86_400_000));
  });

  it('near the floor, budgets shrink to the reserve share and circles stop (the ledger is told)', async () => {
    const { p, checks } = policy(10n ** 17n);
    await p.decide(payment(1000n));
    assert.equal(checks[0]!.reserve, true);
    assert.equal(checks[0]!.payerBudgetWei, (settings.payerBudgetWei * 5n) / 100n);
    assert.equal(checks[0]!.payeeBudgetWei, (settings.payeeBudgetWei * 5n) / 100n);
  });

  it('a reverted settlement\'s gas is charged as a fee only (no payment recorded), and counts against the balance seen', async () => {
    const { p, records } = policy(10n ** 18n);
    await p.decide(payment(1000n));
    await p.recordFee(payment(1000n));
    assert.deepEqual(records, [{ feeOnly: { payer: '0xA', payee: '0xB', day: Math.floor(1_700_000_000_000 / 86_400_000), feeWei: FEE } }]);
  });

  it('each refusal of the ledger is a decline with its reason and a message for the payer', async () => {
    for (const verdict of ['payer_budget', 'payee_budget', 'circular', 'reserve'] as const) {
      const decided = await policy(10n ** 18n, verdict).p.decide(payment(1000n));
      assert.equal(decided.sponsored, false);
      assert.equal((decided as { reason: string }).reason, verdict);
      assert.match((decided as { message: string }).message, /nothing was charged/);
    }
  });
});
