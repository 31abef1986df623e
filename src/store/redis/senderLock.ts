/**
 * One sender per facilitator key across gateways (issue 44; store/evm/sender.ts): a Redis lock
 * per (network, address), held while a gateway picks the account nonce, signs, journals and
 * broadcasts, and the next nonce handed out, stored with the release. The holder renews the lock
 * every LOCK_RENEW_MS while it works, so a slow broadcast (a remote RPC) keeps it, and a gateway that
 * dies holding it stops the others for LOCK_TTL_MS at most. Should a holder still lose it (its
 * Redis stalled past the expiry), it could race the next holder for a nonce, and the node then
 * refuses one of the two (which the journal forgets, so its settlement is retried cleanly).
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

/** A dead holder's lock lapses after this long. */
export const LOCK_TTL_MS = 2_000;
/** How often a live holder pushes the expiry out again: three chances before it lapses. */
const LOCK_RENEW_MS = 600;
const RETRY_MS = 2;
const WAIT_MS = 15_000;
/**
 * The next nonce is forgotten after this long without a send, so an idle key starts again from
 * the node's count: a restarted dev node (its state is in memory) or a key used by hand meanwhile
 * never leaves a settlement waiting behind a nonce gap for longer than one busy spell.
 */
const NEXT_TTL_SECONDS = 300;

// KEYS: lock, next. ARGV: token, ttl. The stored next nonce ('' when none) once locked, else false.
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return redis.call('GET', KEYS[2]) or '' end
return false`;
// KEYS: lock. ARGV: token, ttl. Pushes the expiry out only while still the holder.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;
// KEYS: lock, next. ARGV: token, next ('' to leave it), its ttl. Stores the next nonce only while still the holder.
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then
  local current = tonumber(redis.call('GET', KEYS[2]) or '0')
  if tonumber(ARGV[2]) > current then redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3]) end
end
redis.call('DEL', KEYS[1])
return 1`;

export class SenderLock {
  private readonly keys: RedisKeys;

  constructor(private readonly redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
  }

  async withSender<T>(sender: string, fn: (storedNext: number | undefined) => Promise<{ value: T; next?: number }>): Promise<T> {
    const lock = this.keys.senderLock(sender);
    const next = this.keys.senderNextNonce(sender);
    const token = randomUUID();
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const stored = (await this.redis.eval(ACQUIRE, 2, lock, next, token, LOCK_TTL_MS)) as string | null;
      if (stored !== null) {
        let result: { value: T; next?: number } | undefined;
        const renewal = setInterval(() => void this.redis.eval(RENEW, 1, lock, token, LOCK_TTL_MS).catch(() => undefined), LOCK_RENEW_MS);
        try {
          result = await fn(stored === '' ? undefined : Number(stored));
          return result.value;
        } finally {
          clearInterval(renewal);
          await this.redis.eval(RELEASE, 2, lock, next, token, result?.next?.toString() ?? '', NEXT_TTL_SECONDS).catch(() => undefined);
        }
      }
      if (Date.now() > deadline) throw new Error(`the sender ${sender} stayed locked for ${WAIT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
