/**
 * Redis side of the durable catalog write path (docs/catalog-write.md): a stream of
 * pending writes read by a consumer group, a dead-letter stream, per-entry failure counts and the
 * set of live listing ids. Payloads are opaque strings here; src/catalog owns their meaning.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { redisKeys } from './redisKeys.js';
import { ChangeLog } from './changeLog.js';
import { deleteKeys, dropRedisPrefix, duplicateClient, replicated, type RedisClient } from './client.js';

export interface StreamEntry {
  entryId: string;
  payload: string;
  /** The listing the entry writes, so a consumer can order work without decoding payloads. */
  listingId?: string;
  /** An upsert of an id that was not live when it was queued (probably not stored yet). */
  probablyNew?: boolean;
}

export interface QueueStats {
  /** Entries in the stream not yet applied to Elasticsearch (delivered or not). */
  depth: number;
  /** Entries delivered to a consumer and not acknowledged yet. */
  pending: number;
  deadLetters: number;
}

export interface DeadLetter {
  entryId: string;
  payload: string;
  reason: string;
  attempts: number;
  failedAt: string;
}

/** An entry appended together with a change to the live-id set, atomically. */
export interface AppendRequest {
  payload: string;
  listingId?: string;
  live?: { id: string; present: boolean };
}

/** A consumer's blocking view of the stream (WriteStream.openReader). */
export interface StreamReader {
  readNew(consumer: string, count: number, blockMs: number): Promise<StreamEntry[]>;
  close(): void;
}

const GROUP = 'catalog-ingest';

/** KEYS: stream, live set. ARGV: (mode add|rem|'', live id, listing id, payload) per entry. */
const APPEND_SCRIPT = `
local out = {}
for i = 1, #ARGV, 4 do
  local mode, liveId, listingId, payload = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local changed = 0
  if mode == 'add' then changed = redis.call('SADD', KEYS[2], liveId)
  elseif mode == 'rem' then changed = redis.call('SREM', KEYS[2], liveId) end
  if listingId ~= '' then
    redis.call('XADD', KEYS[1], '*', 'id', listingId, 'new', mode == 'add' and tostring(changed) or '0', 'op', payload)
  else
    redis.call('XADD', KEYS[1], '*', 'op', payload)
  end
  out[#out + 1] = changed
end
return out
`;

type RawEntries = Array<[string, string[]]>;

function toEntries(raw: RawEntries | undefined): StreamEntry[] {
  const out: StreamEntry[] = [];
  for (const [entryId, fields] of raw ?? []) {
    const entry: StreamEntry = { entryId, payload: '' };
    for (let i = 0; i + 1 < fields.length; i += 2) {
      if (fields[i] === 'op') entry.payload = fields[i + 1]!;
      else if (fields[i] === 'id') entry.listingId = fields[i + 1]!;
      else if (fields[i] === 'new') entry.probablyNew = fields[i + 1] === '1';
    }
    out.push(entry);
  }
  return out;
}

export function consumerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export class WriteStream {
  readonly key: string;
  readonly deadKey: string;
  private readonly failuresKey: string;
  private readonly liveKey: string;
  private readonly heartbeatPrefix: string;
  private groupReady = false;

  constructor(private readonly redis: RedisClient, prefix: string) {
    const keys = redisKeys(prefix);
    this.key = keys.writeStream;
    this.deadKey = keys.deadLetters;
    this.failuresKey = keys.writeFailures;
    this.liveKey = keys.liveIds;
    this.heartbeatPrefix = keys.consumerHeartbeatPrefix;
  }

  /**
   * Appends entries with their live-set changes atomically (one script per chunk), so an entry is
   * never in the stream without its live-set change. Returns, per request, whether the live set
   * changed (SADD/SREM answered 1); for an upsert: the id was not live before. The entry carries
   * that answer as `new`, so the consumer can skip reading a listing that is most likely absent.
   */
  async append(requests: AppendRequest[], chunkSize = 500): Promise<boolean[]> {
    const changed: boolean[] = [];
    for (let start = 0; start < requests.length; start += chunkSize) {
      const chunk = requests.slice(start, start + chunkSize);
      const args: string[] = [];
      for (const request of chunk) {
        const mode = request.live ? (request.live.present ? 'add' : 'rem') : '';
        args.push(mode, request.live?.id ?? '', request.listingId ?? '', request.payload);
      }
      const replies = (await this.redis.eval(APPEND_SCRIPT, 2, this.key, this.liveKey, ...args)) as number[];
      for (const value of replies) changed.push(value === 1);
    }
    await replicated(this.redis, this.key);
    return changed;
  }

  async removeLive(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.redis.srem(this.liveKey, ...ids);
  }

  async isLive(id: string): Promise<boolean> {
    return (await this.redis.sismember(this.liveKey, id)) === 1;
  }

  /** Creates the consumer group (and the stream) once; the group starts at the stream's beginning. */
  async ensureGroup(redis: RedisClient = this.redis): Promise<void> {
    if (this.groupReady) return;
    try {
      await redis.xgroup('CREATE', this.key, GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!String((err as Error).message).includes('BUSYGROUP')) throw err;
    }
    this.groupReady = true;
  }

  /** After a NOGROUP error (the stream was deleted): the group is created again on the next read. */
  forgetGroup(): void {
    this.groupReady = false;
  }

  /**
   * A reader of new entries on a connection of its own: blocking reads never hold up the commands
   * of the shared connection. `onError` hears that connection's errors (it reconnects by itself).
   */
  openReader(onError: (err: Error) => void): StreamReader {
    const connection = duplicateClient(this.redis);
    connection.on('error', onError);
    return {
      readNew: (consumer, count, blockMs) => this.readNew(connection, consumer, count, blockMs),
      close: () => connection.disconnect(),
    };
  }

  /** New entries for this consumer; blocks up to `blockMs` on `connection` (a dedicated one). */
  async readNew(connection: RedisClient, consumer: string, count: number, blockMs: number): Promise<StreamEntry[]> {
    const reply = (await connection.xreadgroup('GROUP', GROUP, consumer, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', this.key, '>')) as
      | Array<[string, RawEntries]>
      | null;
    return toEntries(reply?.[0]?.[1]);
  }

  /** Forgets a stopping consumer that holds nothing, so restarts do not pile up dead consumer names. */
  async removeConsumerIfIdle(consumer: string): Promise<void> {
    const pending = (await this.redis.xpending(this.key, GROUP, '-', '+', 1, consumer)) as unknown[];
    if (pending.length === 0) await this.redis.xgroup('DELCONSUMER', this.key, GROUP, consumer);
  }

  private heartbeatKey(consumer: string): string {
    return `${this.heartbeatPrefix}${consumer}`;
  }

  /** Says that `consumer` is alive for the next `ttlMs`; a crashed consumer's key expires on its own. */
  async heartbeat(consumer: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.heartbeatKey(consumer), '1', 'PX', ttlMs);
  }

  async forgetHeartbeat(consumer: string): Promise<void> {
    await this.redis.del(this.heartbeatKey(consumer));
  }

  /**
   * Takes over what consumers without a live heartbeat (crashed, or killed) still hold, at most
   * `count` entries. `minIdleMs` keeps two live consumers from claiming the same entries in turn.
   */
  async claimFromDeadConsumers(consumer: string, minIdleMs: number, count: number): Promise<StreamEntry[]> {
    const consumers = (await this.redis.xinfo('CONSUMERS', this.key, GROUP)) as unknown[][];
    const holders = consumers
      .map((fields) => ({ name: String(fields[fields.indexOf('name') + 1]), pending: Number(fields[fields.indexOf('pending') + 1]) }))
      .filter((c) => c.name !== consumer && c.pending > 0);
    if (holders.length === 0) return [];
    const alive = await Promise.all(holders.map((c) => this.redis.exists(this.heartbeatKey(c.name))));
    const claimed: StreamEntry[] = [];
    for (const [i, holder] of holders.entries()) {
      if (alive[i] === 1 || claimed.length >= count) continue;
      const pending = (await this.redis.xpending(this.key, GROUP, '-', '+', count - claimed.length, holder.name)) as Array<[string, ...unknown[]]>;
      if (pending.length === 0) continue;
      const raw = (await this.redis.xclaim(this.key, GROUP, consumer, minIdleMs, ...pending.map((p) => p[0]))) as RawEntries;
      claimed.push(...toEntries(raw).filter((e) => e.payload !== ''));
    }
    return claimed;
  }

  /**
   * Takes back what the group says `consumer` holds and `consumer` does not know it holds (`held`):
   * a delivery whose reply was lost, or an acknowledgement a failed-over primary never passed to the
   * replica that took over (the entry is pending again on the promoted one). The consumer is alive,
   * so nobody else takes these before CATALOG_CLAIM_IDLE_MS; it does so itself as soon as it sees
   * them (idle at least `minIdleMs`, so a reply on its way is not taken for lost). Applying an entry
   * twice is harmless (writes are idempotent).
   */
  async reclaimUnknownOwn(consumer: string, held: ReadonlySet<string>, minIdleMs: number, count: number): Promise<StreamEntry[]> {
    const pending = (await this.redis.xpending(this.key, GROUP, 'IDLE', minIdleMs, '-', '+', held.size + count, consumer)) as Array<[string, ...unknown[]]>;
    const lost = pending.map((p) => p[0]).filter((id) => !held.has(id)).slice(0, count);
    if (lost.length === 0) return [];
    // Entries deleted meanwhile are not returned (and leave the pending list: Redis 7).
    const raw = (await this.redis.xclaim(this.key, GROUP, consumer, minIdleMs, ...lost)) as RawEntries;
    return toEntries(raw).filter((e) => e.payload !== '');
  }

  /** Takes over entries another consumer received but did not acknowledge within `minIdleMs`. */
  async claimAbandoned(consumer: string, minIdleMs: number, count: number): Promise<StreamEntry[]> {
    const reply = (await this.redis.xautoclaim(this.key, GROUP, consumer, minIdleMs, '0-0', 'COUNT', count)) as [string, RawEntries, string[]?];
    return toEntries(reply[1]).filter((e) => e.payload !== '');
  }

  /** Acknowledges and deletes applied entries, forgetting their failure counts. */
  async ack(entryIds: string[]): Promise<void> {
    if (entryIds.length === 0) return;
    await this.redis
      .multi()
      .xack(this.key, GROUP, ...entryIds)
      .xdel(this.key, ...entryIds)
      .hdel(this.failuresKey, ...entryIds)
      .exec();
  }

  /** Counts one more failed attempt of an entry; returns the attempts so far. */
  async recordFailure(entryId: string): Promise<number> {
    return this.redis.hincrby(this.failuresKey, entryId, 1);
  }

  /** Moves an entry to the dead-letter stream with its reason, then acknowledges it. */
  async deadLetter(entry: StreamEntry, reason: string, attempts: number, now: Date): Promise<void> {
    await this.redis
      .multi()
      .xadd(
        this.deadKey, 'MAXLEN', '~', 100_000, '*',
        'op', entry.payload, 'reason', reason, 'attempts', String(attempts), 'failedAt', now.toISOString(),
        'entryId', entry.entryId, 'listingId', entry.listingId ?? '',
      )
      .xack(this.key, GROUP, entry.entryId)
      .xdel(this.key, entry.entryId)
      .hdel(this.failuresKey, entry.entryId)
      .exec();
  }

  async deadLetters(count = 100): Promise<DeadLetter[]> {
    const raw = (await this.redis.xrange(this.deadKey, '-', '+', 'COUNT', count)) as RawEntries;
    return raw.map(([, fields]) => {
      const get = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
      return { entryId: get('entryId'), payload: get('op'), reason: get('reason'), attempts: Number(get('attempts')), failedAt: get('failedAt') };
    });
  }

  /** Puts dead-lettered entries back on the write stream (after the cause was fixed); returns how many. */
  async requeueDeadLetters(count = 1000): Promise<number> {
    const raw = (await this.redis.xrange(this.deadKey, '-', '+', 'COUNT', count)) as RawEntries;
    if (raw.length === 0) return 0;
    const multi = this.redis.multi();
    for (const [deadId, fields] of raw) {
      const get = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
      const listingId = fields.includes('listingId') ? get('listingId') : '';
      if (listingId) multi.xadd(this.key, '*', 'id', listingId, 'op', get('op'));
      else multi.xadd(this.key, '*', 'op', get('op'));
      multi.xdel(this.deadKey, deadId);
    }
    await multi.exec();
    return raw.length;
  }

  async stats(): Promise<QueueStats> {
    const [depth, pending, dead] = await Promise.all([
      this.redis.xlen(this.key),
      this.redis.xpending(this.key, GROUP).then((r) => Number((r as [number])[0] ?? 0)).catch(() => 0),
      this.redis.xlen(this.deadKey),
    ]);
    return { depth, pending, deadLetters: dead };
  }
}

/** Deletes the write path's keys under a prefix (benchmarks and tests starting from scratch). */
export async function dropCatalogKeys(redis: RedisClient, prefix: string): Promise<void> {
  const keys = redisKeys(prefix);
  // The change feed's and the listing history's keys too: a fresh catalog has no past.
  const changes = new ChangeLog(redis, prefix);
  await deleteKeys(redis, [keys.writeStream, keys.deadLetters, keys.writeFailures, keys.liveIds, changes.key, changes.latestKey, changes.seededKey, changes.epochKey]);
  await dropRedisPrefix(redis, keys.historyPrefix);
}
