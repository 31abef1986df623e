/**
 * Makes /settle idempotent by payment payload: a Redis SET NX lock per payload hash lets exactly one
 * request settle; its successful result is stored and returned to every repeat, including the
 * duplicates that arrived while it was running. Failed settlements are not stored: nothing moved,
 * so the same payload may be retried (after funding the wallet, say).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const RESULT_TTL_SECONDS = 8 * 24 * 3600;
const LOCK_TTL_MS = 30_000;
const POLL_MS = 10;

const RELEASE_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** JSON with object keys sorted, so the same payload hashes the same however it was serialized. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function payloadHash(paymentPayload: unknown): string {
  return createHash('sha256').update(canonicalJson(paymentPayload)).digest('hex');
}

export type StoredOutcome<T> = { result: T; replayed: boolean } | { pending: true };

export class SettlementStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly waitMs = 15_000,
  ) {}

  private resultKey(hash: string): string {
    return `${this.prefix}settle:result:${hash}`;
  }

  private lockKey(hash: string): string {
    return `${this.prefix}settle:lock:${hash}`;
  }

  /**
   * Runs `settle` at most once at a time per payload hash. `settle` returns the result and whether
   * it is final (stored for repeats). A duplicate waits for the holder; `pending` when it waited too long.
   */
  async once<T>(hash: string, settle: () => Promise<{ result: T; final: boolean }>): Promise<StoredOutcome<T>> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const stored = await this.redis.get(this.resultKey(hash));
      if (stored !== null) return { result: JSON.parse(stored) as T, replayed: true };
      const token = randomUUID();
      const acquired = await this.redis.set(this.lockKey(hash), token, 'PX', LOCK_TTL_MS, 'NX');
      if (acquired === 'OK') {
        try {
          // A holder may have stored its result between our GET and our SET NX.
          const late = await this.redis.get(this.resultKey(hash));
          if (late !== null) return { result: JSON.parse(late) as T, replayed: true };
          const { result, final } = await settle();
          if (final) await this.redis.set(this.resultKey(hash), JSON.stringify(result), 'EX', RESULT_TTL_SECONDS);
          return { result, replayed: false };
        } finally {
          await this.redis.eval(RELEASE_SCRIPT, 1, this.lockKey(hash), token).catch(() => undefined);
        }
      }
      if (Date.now() > deadline) return { pending: true };
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
