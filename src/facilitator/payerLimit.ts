/**
 * The per-payer budget of /verify and /settle (RATE_LIMIT_FACILITATOR_PAYER; docs/facilitator.md
 * "Rate limits"). It is counted after the signature was recovered, so only the wallet's own payments
 * spend it: nobody can lock a buyer out by sending payloads that merely claim its address. And it
 * counts distinct payments (payer, nonce), so replaying a buyer's signed payload, which anyone who
 * saw it can do, does not spend it either. Fixed windows in Redis (store/redis/payerPayments.ts),
 * shared by every instance.
 */
import type { PayerPaymentCounter } from '../store/redis/payerPayments.js';
import type { RateLimitRule } from '../config/rateLimitSettings.js';
import type { Transfer } from './payment.js';

/** Thrown when a payer spent its budget; the route answers 429 rate_limited with Retry-After. */
export class PayerLimitExceeded extends Error {
  constructor(readonly rule: RateLimitRule, readonly retryAfterSeconds: number) {
    super(`payer rate limit: at most ${rule.limit} payments per ${rule.windowMs} ms`);
    this.name = 'PayerLimitExceeded';
  }
}

export class PayerLimit {
  /** `counter` is needed only with a rule (the container builds none without one). */
  constructor(
    private readonly counter: PayerPaymentCounter | undefined,
    private readonly rule: RateLimitRule | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one payment of `operation` by `payer`; throws PayerLimitExceeded past the rule (no-op when off). */
  async consume(operation: 'verify' | 'settle', payer: string, transfer: Transfer): Promise<void> {
    const { rule, counter } = this;
    if (!rule || !counter) return;
    const at = this.now();
    const window = Math.floor(at / rule.windowMs);
    const count = await counter.count(operation, window, payer.toLowerCase(), `${transfer.network}|${transfer.nonceSpace}|${transfer.nonce}`, rule.windowMs + 1000);
    if (count > rule.limit) throw new PayerLimitExceeded(rule, Math.max(1, Math.ceil(((window + 1) * rule.windowMs - at) / 1000)));
  }
}
