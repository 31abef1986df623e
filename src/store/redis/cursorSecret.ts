/**
 * The key cursors are signed with. CURSOR_SECRET when set (several deployments sharing cursors
 * set the same one); otherwise one random secret generated once and kept in Redis, so every
 * instance of this deployment and every restart accept the same cursors.
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './client.js';
import type { Logger } from '../../logger.js';
import { redisKeys } from './redisKeys.js';

export function cursorSecretProvider(options: { configured?: string; redis: RedisClient; redisPrefix: string; logger: Logger }): () => Promise<Buffer> {
  if (options.configured) {
    const secret = Buffer.from(options.configured, 'utf8');
    return async () => secret;
  }
  let pending: Promise<Buffer> | undefined;
  const load = async (): Promise<Buffer> => {
    const key = redisKeys(options.redisPrefix).cursorSecret;
    await options.redis.set(key, randomBytes(32).toString('base64url'), 'NX');
    const stored = await options.redis.get(key);
    if (!stored) throw new Error('cursor secret vanished from Redis');
    options.logger.warn('CURSOR_SECRET is not set; signing cursors with a generated secret kept in Redis', { key });
    return Buffer.from(stored, 'utf8');
  };
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
