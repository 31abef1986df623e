/**
 * One payment pays for one request. The facilitator's /settle is idempotent by payload, so two
 * concurrent requests carrying the same payment could both verify and both "settle" successfully;
 * the seller claims a payment before verifying it and refuses a second request with the same one.
 * A claim is released when the payment is not charged (refused, tool error, service down).
 */
import { createHash } from 'node:crypto';
import type { PaymentPayload } from '../x402/wire.js';
import { systemClock, type Clock } from '../core/clock.js';

export class PaymentClaims {
  private readonly claims = new Map<string, number>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly maxEntries = 100_000,
    private readonly now: Clock = systemClock,
  ) {}

  static keyOf(payload: PaymentPayload): string {
    return createHash('sha256').update(JSON.stringify(payload.payload)).digest('hex');
  }

  /** False when the same payment is already in flight or was charged within the TTL. */
  claim(key: string): boolean {
    const at = this.now();
    const expires = this.claims.get(key);
    if (expires !== undefined && expires > at) return false;
    this.claims.delete(key);
    this.claims.set(key, at + this.ttlMs);
    this.evict(at);
    return true;
  }

  release(key: string): void {
    this.claims.delete(key);
  }

  /** Map order is insertion order, so the oldest claims are at the front. */
  private evict(at: number): void {
    for (const [key, expires] of this.claims) {
      if (expires > at && this.claims.size <= this.maxEntries) break;
      this.claims.delete(key);
    }
  }
}
