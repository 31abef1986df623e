import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { clusterSeeds } from '../../core/redisTarget.js';
import { redisKeys } from './redisKeys.js';

export type { Redis } from 'ioredis';

/**
 * A Redis connection: one server (the default) or a Redis Cluster through ioredis' own Cluster
 * client (REDIS_CLUSTER_NODES or a redis+cluster:// URL). Both answer the same commands; the store
 * keeps every multi-key command in one hash slot (store/redis/redisKeys.ts) so either works.
 */
export type RedisClient = Redis | Cluster;

function connectionOptions(options: { lazyConnect?: boolean }): RedisOptions {
  return {
    lazyConnect: options.lazyConnect ?? false,
    // Commands fail fast while Redis is down instead of queueing without bound in the process.
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  };
}

/**
 * The one place a Redis connection is made: a single server for `redis://` and `rediss://` URLs
 * (the default), ioredis' Cluster client for `redis+cluster://` seed lists (config/index.ts turns
 * REDIS_CLUSTER_NODES into one).
 */
export function createRedisClient(url: string, options: { lazyConnect?: boolean } = {}): RedisClient {
  const seeds = clusterSeeds(url);
  if (!seeds) return new Redis(url, connectionOptions(options));
  const { lazyConnect, retryStrategy, ...perNode } = connectionOptions(options);
  return new Cluster(seeds, {
    lazyConnect,
    redisOptions: perNode,
    clusterRetryStrategy: retryStrategy,
    enableOfflineQueue: true,
    // A failover (a replica promoted after its primary died) takes a few seconds: commands aimed at
    // the dead primary are retried on the new slot owner instead of failing at once.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 300,
    retryDelayOnTryAgain: 100,
    maxRedirections: 16,
    slotsRefreshInterval: 2000,
  });
}

/** How long an acknowledged write waits for its replica (then it is acknowledged anyway: see below). */
const REPLICA_ACK_TIMEOUT_MS = 500;

/**
 * Waits until the replica of the Cluster primary that holds `key` has every write this client sent
 * to that primary. Redis replicates asynchronously: a primary that dies right after answering can
 * take the newest writes with it when its replica is promoted. Called after the writes the service
 * acknowledges to a client (catalog writes, settlements, accepted announces, issued tokens) so an
 * acknowledged write survives a failover. A single Redis has no failover: nothing to wait for. A
 * replica that does not answer within REPLICA_ACK_TIMEOUT_MS does not fail the write (it is on the
 * primary; availability first), it only loses that guarantee.
 */
export async function replicated(redis: RedisClient, key: string): Promise<void> {
  if (!(redis instanceof Cluster)) return;
  const [primary, ...replicas] = redis.slots[calculateSlot(key)] ?? [];
  if (!primary || replicas.length === 0) return;
  // The pool's connection to that primary is the one the write went through (WAIT counts per connection).
  const server = redis.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === primary);
  await server?.wait(1, REPLICA_ACK_TIMEOUT_MS);
}

/** A second connection to the same Redis (or Cluster), for blocking reads or auto-pipelining. */
export function duplicateClient(redis: RedisClient, overrides: { enableAutoPipelining?: boolean } = {}): RedisClient {
  return redis instanceof Cluster ? redis.duplicate(undefined, overrides) : redis.duplicate(overrides);
}

/**
 * Every key matching `pattern`, in batches, with SCAN (never KEYS, so a shared Redis is not
 * blocked). On a Cluster each primary holds only its own slots, so every primary is scanned.
 */
export async function scanKeys(redis: RedisClient, pattern: string, onBatch: (keys: string[]) => Promise<void>, count = 1000): Promise<void> {
  const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (keys.length > 0) await onBatch(keys);
    } while (cursor !== '0');
  }
}

/**
 * Deletes keys that may live in different hash slots: one DEL per key on a Cluster (a multi-key
 * DEL across slots is refused with CROSSSLOT), one DEL for all of them on a single server.
 */
export async function deleteKeys(redis: RedisClient, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  if (redis instanceof Cluster) await Promise.all(keys.map((key) => redis.del(key)));
  else await redis.del(...keys);
}

export async function redisAnswers(redis: RedisClient, timeoutMs = 2000): Promise<boolean> {
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
 * retries exhausted, connection closed, a Cluster without a serving primary for the slot), as
 * opposed to Redis rejecting the command itself.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return true;
  if (err.name === 'ClusterAllFailedError') return true;
  return (
    err.name === 'MaxRetriesPerRequestError' ||
    // "Too many Cluster redirections": the slot's primary died and no replica has taken over yet
    // (every retry met the closed connection or a MOVED back to the dead node).
    /Connection is closed|Stream isn't writeable|enableOfflineQueue|CLUSTERDOWN|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available/.test(err.message)
  );
}

/** Every key under `prefix` (on a Cluster, on every primary). */
export async function dropRedisPrefix(redis: RedisClient, prefix: string): Promise<void> {
  await scanKeys(redis, redisKeys(prefix).everything, (keys) => deleteKeys(redis, keys));
}
