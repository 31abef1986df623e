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
