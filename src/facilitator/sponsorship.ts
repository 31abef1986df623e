/**
 * Whether the fee sponsor pays for a settlement (issue 43; docs/facilitator.md "Sponsorship"),
 * consulted before a settlement is sent and at /verify (so a seller learns before doing the work).
 * Every settlement costs the one shared sponsor a fee (`feeWei`: the real gas its transaction
 * burns, estimated before and charged from its receipt after), so value that only goes round in circles could drain it for
 * everybody (two wallets sending one unit back and forth, spread over fifty wallets, emptied it in
 * minutes). The rules, in order:
 * 1. A settlement moving less than SPONSOR_MIN_AMOUNT is not sponsored: it pays less than its fee.
 * 2. Near its floor (balance below SPONSOR_RESERVE_WEI) the abusive stop first: a payer that sent
 *    value in a circle today, or passes on value it was paid through the sponsor within the window
 *    (a line of fresh wallets handing one amount on, which no circle check sees), is refused; and
 *    every budget shrinks to SPONSOR_RESERVE_SHARE_PERCENT, so the payers that spent the most stop
 *    while occasional buyers paying with their own funds still settle.
 * 3. Budgets per UTC day: fees for one payer (SPONSOR_PAYER_BUDGET_WEI) and for one payee
 *    (SPONSOR_PAYEE_BUDGET_WEI).
 * 4. A payment to someone who paid the payer (directly or through up to two others) within
 *    SPONSOR_CIRCULAR_WINDOW_MS returns value to where it came from: sponsored at most
 *    SPONSOR_CIRCULAR_ALLOWANCE times per payer and day, and never counted as demand.
 * The counts live in Redis (store/redis/sponsorLedger.ts), shared by every instance; a check and its
 * record are two steps, so concurrent settlements of one payer may pass a budget by their number.
 */
import type { SponsorshipSettings } from '../config/sponsorshipSettings.js';
import type { Clock } from '../core/clock.js';
import type { SponsorLedger, SponsorVerdict } from '../store/redis/sponsorLedger.js';

export type DeclineReason = 'below_minimum' | Exclude<SponsorVerdict, 'ok'>;

export type Sponsorship = { sponsored: true; circular: boolean } | { sponsored: false; reason: DeclineReason; message: string };

export interface SponsoredPayment {
  payer: string;
  payee: string;
  network: string;
  amount: bigint;
  /** What this settlement costs the sponsor. */
  feeWei: bigint;
}

const DAY_MS = 86_400_000;
/**
 * The sponsor's balance is read at most this often per network and process; in between, the fees
 * this process had the sponsor pay are taken off, so a burst cannot overrun the reserve unseen.
 */
const BALANCE_FRESH_MS = 1000;

const MESSAGES: Record<DeclineReason, (s: SponsorshipSettings) => string> = {
  below_minimum: (s) => `the amount is below the ${s.minAmount} base units the fee sponsor pays a network fee for (SPONSOR_MIN_AMOUNT); nothing was charged`,
  payer_budget: () => 'this payer has used its daily share of sponsored network fees; nothing was charged, retry tomorrow (UTC)',
  payee_budget: () => 'payments to this payTo have used their daily share of sponsored network fees; nothing was charged, retry tomorrow (UTC)',
  circular: (s) => `the payment returns value to a wallet that paid this payer within ${Math.round(s.circularWindowMs / 60_000)} minutes, more than ${s.circularAllowance} times today: not sponsored; nothing was charged`,
  reserve: () => 'the fee sponsor is near its floor, and this payer sent value in circles or passes on value it was paid through it: not sponsored until the sponsor is funded; nothing was charged',
};

export class SponsorshipPolicy {
  private readonly balances = new Map<string, { at: number; balance: Promise<bigint>; spent: bigint }>();

  constructor(
    private readonly settings: SponsorshipSettings,
    private readonly ledger: Pick<SponsorLedger, 'check' | 'record' | 'recordFee'>,
    /** The sponsor's balance on a network: the facilitator account's, read from the chain. */
    private readonly sponsorBalance: (network: string) => Promise<bigint>,
    private readonly clock: Clock,
  ) {}

  /** Whether the sponsor pays for this payment; nothing is recorded (record() does, once it moved). */
  async decide(payment: SponsoredPayment): Promise<Sponsorship> {
    const { settings } = this;
    // Never for nothing, whatever the minimum is set to (an upto /verify may ask for 0).
    if (payment.amount < settings.minAmount || payment.amount === 0n) return this.decline('below_minimum');
    const now = this.clock();
    const reserve = (await this.balance(payment.network, now)) < settings.reserveWei;
    const share = (budget: bigint) => (reserve ? (budget * BigInt(Math.round(settings.reserveShare * 10_000))) / 10_000n : budget);
    const { verdict, circular } = await this.ledger.check({
      payer: payment.payer,
      payee: payment.payee,
      day: Math.floor(now / DAY_MS),
      now,
      windowMs: settings.circularWindowMs,
      feeWei: payment.feeWei,
      payerBudgetWei: share(settings.payerBudgetWei),
      payeeBudgetWei: share(settings.payeeBudgetWei),
      circularAllowance: settings.circularAllowance,
      reserve,
    });
    return verdict === 'ok' ? { sponsored: true, circular } : this.decline(verdict);
  }

  /** A sponsored settlement moved: its fee counts against its payer and payee, its flow for circles. */
  async record(payment: SponsoredPayment, circular: boolean): Promise<void> {
    const now = this.clock();
    const cached = this.balances.get(payment.network);
    if (cached) cached.spent += payment.feeWei;
    await this.ledger.record({ payer: payment.payer, payee: payment.payee, day: Math.floor(now / DAY_MS), now, windowMs: this.settings.circularWindowMs, feeWei: payment.feeWei, circular });
  }

  /**
   * A sponsored settlement's transaction was mined and reverted: the sponsor paid its gas
   * (`feeWei`) for nothing, so the payer's and payee's budgets are charged it; no value moved, so
   * no flow is recorded for circles.
   */
  async recordFee(payment: SponsoredPayment): Promise<void> {
    const cached = this.balances.get(payment.network);
    if (cached) cached.spent += payment.feeWei;
    await this.ledger.recordFee({ payer: payment.payer, payee: payment.payee, day: Math.floor(this.clock() / DAY_MS), feeWei: payment.feeWei });
  }

  private decline(reason: DeclineReason): Sponsorship {
    return { sponsored: false, reason, message: MESSAGES[reason](this.settings) };
  }

  private async balance(network: string, now: number): Promise<bigint> {
    let cached = this.balances.get(network);
    if (!cached || now - cached.at >= BALANCE_FRESH_MS) {
      cached = { at: now, balance: this.sponsorBalance(network), spent: 0n };
      const entry = cached;
      this.balances.set(network, entry);
      entry.balance.catch(() => this.balances.get(network) === entry && this.balances.delete(network));
    }
    return (await cached.balance) - cached.spent;
  }
}
