import { Redis } from 'ioredis';

export type { Redis } from 'ioredis';

export function createRedisClient(url: string, options: { lazyConnect?: boolean } = {}): Redis {
  return new Redis(url, {
    lazyConnect: options.lazyConnect ?? false,
    // Commands fail fast while Redis is down instead of queueing without bound in the process.
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
}

export async function redisAnswers(redis: Redis, timeoutMs = 2000): Promise<boolean> {
  try {
    const reply = await Promise.race([
      redis.ping(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref()),
    ]);
    return reply === 'PONG';
  } catch {
    return false;
  }
}

/**
 * True when a Redis command failed because Redis could not be reached (refused, reset, timed out,
 * retries exhausted, connection closed), as opposed to Redis rejecting the command itself.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  return err.name === 'MaxRetriesPerRequestError' || /Connection is closed|Stream isn't writeable|enableOfflineQueue/.test(err.message);
}
