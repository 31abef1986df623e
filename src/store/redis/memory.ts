/**
 * How full the Redis the service writes to is (issue 43). Everything untrusted callers make the
 * service store lands there beside what must never be lost (used nonces, seller tokens, the write
 * stream), so the Redis the project starts has `maxmemory` with `noeviction` (scripts/services.sh):
 * at the limit a write is refused (the service answers 503) instead of evicting a nonce. The service
 * does not reconfigure a Redis it did not start; it reports what it finds (start log, /readyz).
 */
import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './client.js';

/** At or above this share of maxmemory, /readyz says the memory is near its limit. */
export const NEAR_LIMIT_RATIO = 0.9;

export interface RedisMemory {
  /** The fullest primary's used memory and limit (bytes); `maxBytes` 0 when it has none. */
  usedBytes: number;
  maxBytes: number;
  policy: string;
  /** `no_limit`: no maxmemory (Redis grows until the machine kills it); `evicts`: a policy that may drop keys. */
  state: 'ok' | 'near_limit' | 'no_limit' | 'evicts';
}

const field = (info: string, name: string): string | undefined => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();

async function serverMemory(server: Redis): Promise<Omit<RedisMemory, 'state'>> {
  const info = await server.info('memory');
  return { usedBytes: Number(field(info, 'used_memory') ?? 0), maxBytes: Number(field(info, 'maxmemory') ?? 0), policy: field(info, 'maxmemory_policy') ?? 'unknown' };
}

export function memoryState(memory: Omit<RedisMemory, 'state'>): RedisMemory['state'] {
  if (memory.maxBytes <= 0) return 'no_limit';
  if (memory.policy !== 'noeviction') return 'evicts';
  return memory.usedBytes >= memory.maxBytes * NEAR_LIMIT_RATIO ? 'near_limit' : 'ok';
}

/** The fullest primary (every Cluster primary is asked): its figures and what they mean. */
export async function redisMemory(redis: RedisClient): Promise<RedisMemory> {
  const cluster = redis instanceof Cluster;
  if (cluster && redis.status !== 'ready') await redis.ping();
  const servers = await Promise.all((cluster ? redis.nodes('master') : [redis as Redis]).map(serverMemory));
  const rank = (m: Omit<RedisMemory, 'state'>) => (m.maxBytes > 0 ? m.usedBytes / m.maxBytes : -1);
  const fullest = servers.reduce((a, b) => (rank(b) > rank(a) ? b : a));
  // One primary without a limit or with an evicting policy is the weakest link, whatever the others say.
  const unbounded = servers.find((s) => memoryState(s) === 'no_limit' || memoryState(s) === 'evicts');
  const chosen = unbounded ?? fullest;
  return { ...chosen, state: memoryState(chosen) };
}

/** A write Redis refused because it is at maxmemory under noeviction. */
export function isRedisOutOfMemory(err: unknown): boolean {
  return err instanceof Error && /^OOM command not allowed/.test(err.message);
}
