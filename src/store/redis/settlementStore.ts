/**
 * Makes /settle idempotent by payment payload: a Redis SET NX lock per payload hash lets exactly one
 * request settle; its successful result is stored and returned to every repeat, including the
 * duplicates that arrived while it was running. Failed settlements are not stored: nothing moved,
 * so the same payload may be retried (after funding the wallet, say).
 *
 * The stored receipt is bound to the whole request: a repeat must also carry the same payment
 * requirements (payTo, amount, asset, ...). The same payload presented with other requirements gets
 * `mismatch`, never the receipt, or a seller that settles without verifying could be shown a
 * success for money that went to someone else (issue 9, defect 3).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RedisClient } from './client.js';
import { canonicalJson } from '../../core/json.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export const RESULT_TTL_SECONDS = 8 * 24 * 3600;
const LOCK_TTL_MS = 30_000;
const POLL_MS = 10;

// One round trip each: "a stored result, or the lock" and "store the result (when final) and unlock".
const CLAIM_SCRIPT = `
local stored = redis.call('GET', KEYS[1])
if stored then return {'result', stored} end
if redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX') then return {'lock', ''} end
return {'busy', ''}`;
const FINISH_SCRIPT = `
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1`;


export function payloadHash(paymentPayload: unknown): string {
  return createHash('sha256').update(canonicalJson(paymentPayload)).digest('hex');
}

/** What a receipt is bound to besides the payload: the protocol version and the payment requirements. */
export function requestBinding(x402Version: unknown, paymentRequirements: unknown): string {
  return createHash('sha256').update(canonicalJson([x402Version, paymentRequirements])).digest('hex');
}

export type StoredOutcome<T> = { result: T; replayed: boolean } | { pending: true } | { mismatch: true };

interface Receipt<T> {
  request: string;
  result: T;
}

export class SettlementStore {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly waitMs = 15_000,
  ) {
    this.keys = redisKeys(prefix);
  }

  /** Where the final result of a payload's settlement is kept . */
  resultKey(hash: string): string {
    return this.keys.settleResult(hash);
  }

  /** The stored form of a final result, bound to the request that produced it. */
  receipt<T>(binding: string, result: T): string {
    return JSON.stringify({ request: binding, result } satisfies Receipt<T>);
  }

  private lockKey(hash: string): string {
    return this.keys.settleLock(hash);
  }

  /**
   * Runs `settle` at most once at a time per payload hash. `settle` returns the result and whether
   * it is final (stored for repeats). A duplicate waits for the holder; `pending` when it waited too
   * long, `mismatch` when the stored result belongs to a request with another `binding`.
   */
  async once<T>(hash: string, binding: string, settle: () => Promise<{ result: T; final: boolean }>): Promise<StoredOutcome<T>> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const token = randomUUID();
      const [state, stored] = (await this.redis.eval(CLAIM_SCRIPT, 2, this.resultKey(hash), this.lockKey(hash), token, LOCK_TTL_MS)) as [string, string];
      if (state === 'result') {
        const receipt = JSON.parse(stored) as Partial<Receipt<T>>;
        return receipt.request === binding ? { result: receipt.result as T, replayed: true } : { mismatch: true };
      }
      if (state === 'lock') {
        let outcome: { result: T; final: boolean } | undefined;
        try {
          outcome = await settle();
          return { result: outcome.result, replayed: false };
        } finally {
          const result = outcome?.final ? this.receipt(binding, outcome.result) : '';
          await this.redis.eval(FINISH_SCRIPT, 2, this.resultKey(hash), this.lockKey(hash), token, result, RESULT_TTL_SECONDS).catch(() => undefined);
        }
      }
      if (Date.now() > deadline) return { pending: true };
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
