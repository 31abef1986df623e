/**
 * Whether the Redis the service writes to keeps an acknowledged write through a crash. The catalog
 * write path, the settlements and the chain journal are only as durable as that Redis (docs/catalog-write.md
 * "Durability of Redis itself"): a write counts as kept when every primary either appends it to an
 * append-only file fsynced every second or on every write (a killed redis-server loses nothing the
 * service acknowledged: Redis writes the file before it answers; a machine crash loses at most about
 * a second), or, on a Redis Cluster, has a replica the service waits for with WAIT
 * (store/redis/client.ts `replicated`). Snapshots alone (RDB `save`) lose minutes and do not count.
 */
import { Cluster, type Redis } from 'ioredis';
import type { RedisClient } from './client.js';

export interface ServerPersistence {
  server: string;
  appendOnly: boolean;
  /** `everysec`, `always` or `no` (fsync left to the OS); undefined when CONFIG GET is refused. */
  appendFsync?: string;
  /** Replicas connected to this primary: counted on a Cluster only (the service WAITs there). */
  replicas: number;
  durable: boolean;
}

export interface RedisPersistence {
  durable: boolean;
  servers: ServerPersistence[];
  /** One sentence for the start log and /readyz. */
  summary: string;
}

function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

async function serverPersistence(server: Redis, countReplicas: boolean): Promise<ServerPersistence> {
  const [persistence, replication] = await Promise.all([server.info('persistence'), server.info('replication')]);
  const appendOnly = infoField(persistence, 'aof_enabled') === '1';
  // Managed Redis often renames CONFIG away: an AOF of unknown fsync policy is taken as the default (everysec).
  const appendFsync = await server
    .config('GET', 'appendfsync')
    .then((reply) => (reply as string[])[1])
    .catch(() => undefined);
  const replicas = countReplicas ? Number(infoField(replication, 'connected_slaves') ?? 0) : 0;
  const fsynced = appendOnly && appendFsync !== 'no';
  return { server: `${server.options.host}:${server.options.port}`, appendOnly, appendFsync, replicas, durable: fsynced || replicas > 0 };
}

function describe(server: ServerPersistence): string {
  const aof = server.appendOnly ? `append-only file (fsync ${server.appendFsync ?? 'unknown'})` : 'no append-only file';
  return `${server.server}: ${aof}, ${server.replicas} replica(s) waited for`;
}

/** Asks every primary (one server, or each Cluster primary) how it keeps writes. */
export async function redisPersistence(redis: RedisClient): Promise<RedisPersistence> {
  const cluster = redis instanceof Cluster;
  // A Cluster client knows its primaries once it has read the slot map.
  if (cluster && redis.status !== 'ready') await redis.ping();
  const servers = await Promise.all((cluster ? redis.nodes('master') : [redis as Redis]).map((server) => serverPersistence(server, cluster)));
  const weak = servers.filter((s) => !s.durable);
  const durable = servers.length > 0 && weak.length === 0;
  const summary = durable
    ? `acknowledged writes survive a Redis crash: ${servers.map(describe).join('; ')}`
    : `acknowledged writes can be lost if Redis crashes or restarts (turn on appendonly with appendfsync everysec${cluster ? ', or give every primary a replica' : ''}): ${weak.map(describe).join('; ')}`;
  return { durable, servers, summary };
}
