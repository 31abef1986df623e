/**
 * The fee sponsor's policy (src/facilitator/sponsorship.ts; docs/facilitator.md "Sponsorship"): what
 * a settlement must move to be sponsored, what one payer and one payee may cost the sponsor a day,
 * how payments that go in circles are treated, and when the sponsor counts as near its floor.
 * Budgets are counted in fees; their defaults are in units of BUDGET_FEE_WEI.
 */
import type { EnvReader } from './envReader.js';

export interface SponsorshipSettings {
  /** A settlement moving less than this (base units of the asset) is not sponsored: it would cost the sponsor more than it pays. */
  minAmount: bigint;
  /** Fees (wei) the sponsor pays for one payer's settlements per UTC day. */
  payerBudgetWei: bigint;
  /** Fees (wei) the sponsor pays for settlements to one payee per UTC day. */
  payeeBudgetWei: bigint;
  /** A payment whose payee paid its payer (directly or through up to two others) within this long returns value in a circle. */
  circularWindowMs: number;
  /** Circular payments one payer gets sponsored per UTC day (none of them counts as demand). */
  circularAllowance: number;
  /** Below this sponsor balance (wei) the sponsor is near its floor: payers with circular payments stop, budgets shrink. */
  reserveWei: bigint;
  /** Near the floor, each payer's and payee's budget is this share of the usual one. */
  reserveShare: number;
}

const WEI = /^[0-9]{1,19}$/;

function readWei(read: EnvReader, name: string, fallback: bigint): bigint {
  const value = read.string(name, fallback.toString(), (v) => (WEI.test(v) && BigInt(v) <= 9_223_372_036_854_775_807n ? undefined : 'must be a non-negative integer amount of wei below 2^63'));
  return WEI.test(value) ? BigInt(value) : fallback;
}

/**
 * The fee unit of the budgets' defaults: 21,000 gas at 1 gwei (the simulated fee the test ledger
 * charged before settlements went on chain, kept so the defaults stay what they were). A real
 * settlement costs several of them (an EIP-3009 transfer ~60-85k gas, Permit2 ~100k).
 */
export const BUDGET_FEE_WEI = 21_000_000_000_000n;

export function readSponsorshipSettings(read: EnvReader, floorWei: bigint): SponsorshipSettings {
  const feeWei = BUDGET_FEE_WEI;
  const minAmount = read.string('SPONSOR_MIN_AMOUNT', '100', (v) => (/^[0-9]{1,30}$/.test(v) ? undefined : 'must be a non-negative integer amount in base units'));
  const share = read.integer('SPONSOR_RESERVE_SHARE_PERCENT', 5, 0, 100);
  return {
    minAmount: /^[0-9]{1,30}$/.test(minAmount) ? BigInt(minAmount) : 100n,
    // A busy buyer pays ~1,000 times a day; a seller is paid by many buyers.
    payerBudgetWei: readWei(read, 'SPONSOR_PAYER_BUDGET_WEI', feeWei * 1000n),
    payeeBudgetWei: readWei(read, 'SPONSOR_PAYEE_BUDGET_WEI', feeWei * 10_000n),
    circularWindowMs: read.integer('SPONSOR_CIRCULAR_WINDOW_MS', 86_400_000, 1000, 30 * 86_400_000),
    circularAllowance: read.integer('SPONSOR_CIRCULAR_ALLOWANCE', 3, 0, 1_000_000),
    reserveWei: readWei(read, 'SPONSOR_RESERVE_WEI', floorWei * 2n),
    reserveShare: share / 100,
  };
}
