/**
 * Probe records and the probe schedule, in Redis. One sorted set (`probe:due`, id -> due time)
 * is both the queue of fresh announces (due now) and the re-probe calendar of listed resources
 * (due in a day), so 100,000 listings cost one small hash each plus a ZRANGEBYSCORE per batch.
 * A claim pushes the entry a lease into the future instead of removing it: a worker that dies
 * mid-probe leaves it to be claimed again (at-least-once).
 */
import { replicated, type RedisClient } from './client.js';
import { redisKeys, type RedisKeys } from './redisKeys.js';

export type ProbeStatus = 'pending' | 'listed' | 'rejected';

export interface ProbeRecord {
  id: string;
  /** The concrete URL that is fetched (the listing may carry a route template instead). */
  resource: string;
  method: string;
  routeTemplate?: string;
  /** Set when the 402 declared a routeTemplate the announce did not: the listing's id differs. */
  listingId?: string;
  status: ProbeStatus;
  reason?: string;
  detail?: string;
  /** JSON of the announced payment options the next probe must match; consumed by that probe. */
  expected?: string;
  announcedAt?: number;
  lastProbedAt?: number;
  listedAt?: number;
  /** The resource and method of the probe that listed it: re-probes must fetch these, nothing else. */
  verifiedResource?: string;
  verifiedMethod?: string;
  nextProbeAt?: number;
  /** Consecutive transient failures (timeouts, refused connections, 5xx) of a listed resource. */
  failures: number;
  /** JSON of the upstream or manifest that first claimed the resource (src/federation), kept from its first claim. */
  provenance?: string;
  /** JSON of the latest claim of the listed resource (issue 43: its next probe adds that source to `provenance.namedBy`). */
  lastClaim?: string;
  /**
   * A health-only record (docs/health.md): a listing nobody announced (known from
   * settlements: `http`, the URL must still answer 402) or an MCP tool (`mcp`, an unpaid call must
   * answer with payment requirements). Checked on this schedule; never writes or removes the listing.
   */
  watch?: 'http' | 'mcp';
  /** `mcp`: the tool to call, and the JSON arguments of the unpaid call. */
  toolName?: string;
  callArguments?: string;
}

export interface WatchRequest {
  /** The listing id. */
  id: string;
  watch: 'http' | 'mcp';
  /** The URL checked: the listing's URL, or the MCP server's Streamable HTTP endpoint. */
  resource: string;
  method: string;
  toolName?: string;
  callArguments?: string;
  /** When the first check is due. */
  dueAt: number;
}

export interface EnqueueRequest {
  id: string;
  /** Id of the same URL without a route template, so a status lookup by URL finds the record. */
  aliasId?: string;
  resource: string;
  method: string;
  routeTemplate?: string;
  expected?: string;
  now: number;
  minIntervalMs: number;
  /** JSON of the upstream or manifest claiming it (src/federation): set once, by the first claim of an unlisted record. */
  provenance?: string;
  /**
   * A claim rather than an announce: nothing is queued for a listed record (already verified) nor
   * for one whose probe was refused within `rejectedRetryMs`.
   */
  claim?: { rejectedRetryMs: number; /** `source|url` of the claimer: a new one re-probes a listed record. */ source?: string };
}

/**
 * A listed record keeps the resource, method and routeTemplate it was verified with: the id ignores
 * the query string and, for a templated id, the concrete path, so another announcer's URL for the
 * same id (`?x=1`, `/users/doesnotexist`) must never become the URL the listing is re-probed at.
 * Its announce only queues a re-probe of the verified URL (with its `expected`, if any). Pending and
 * rejected records take the newest announced URL.
 */
const ENQUEUE = `
if ARGV[9] == '1' then
  local current = redis.call('HMGET', KEYS[2], 'status', 'lastProbedAt')
  if current[1] == 'listed' then
    -- A claim of a listed resource is remembered for its next probe; a source never seen naming it
    -- brings that probe forward, so every source shows on the listing (capped at 8 sources).
    if ARGV[8] ~= '' and ARGV[11] ~= '' then
      redis.call('HSET', KEYS[2], 'lastClaim', ARGV[8])
      local known = redis.call('HGET', KEYS[2], 'claimedBy') or ''
      if not string.find('\\n' .. known .. '\\n', '\\n' .. ARGV[11] .. '\\n', 1, true) then
        local list = {}
        for entry in string.gmatch(known, '[^\\n]+') do table.insert(list, entry) end
        table.insert(list, ARGV[11])
        while #list > 8 do table.remove(list, 1) end
        redis.call('HSET', KEYS[2], 'claimedBy', table.concat(list, '\\n'))
        redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
        return {1, 'listed'}
      end
    end
    return {0, 'listed'}
  end
  if current[1] == 'rejected' and tonumber(current[2] or '0') > tonumber(ARGV[10]) then return {0, 'rejected'} end
end
if redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX') == false then
  return {0, redis.call('HGET', KEYS[2], 'status') or 'pending'}
end
local status = redis.call('HGET', KEYS[2], 'status')
-- A health-only record (a listing known from settlements) is replaced by the announce's probe.
if status == 'listed' and redis.call('HEXISTS', KEYS[2], 'watch') == 0 then
  redis.call('HSET', KEYS[2], 'expected', ARGV[7], 'announcedAt', ARGV[2])
else
  status = 'pending'
  redis.call('HSET', KEYS[2], 'id', ARGV[3], 'resource', ARGV[4], 'method', ARGV[5], 'routeTemplate', ARGV[6],
    'expected', ARGV[7], 'status', status, 'announcedAt', ARGV[2])
  redis.call('HDEL', KEYS[2], 'reason', 'detail', 'watch', 'toolName', 'callArguments', 'failures')
  if ARGV[8] ~= '' then redis.call('HSETNX', KEYS[2], 'provenance', ARGV[8]) end
  -- The first claimer is a known source of the listing its probe may make.
  if ARGV[11] ~= '' then redis.call('HSETNX', KEYS[2], 'claimedBy', ARGV[11]) end
end
redis.call('PERSIST', KEYS[2])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
if KEYS[4] ~= KEYS[2] then redis.call('SET', KEYS[4], ARGV[3], 'EX', 2592000) end
return {1, status}`;

const CLAIM = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', ARGV[3], id) end
return due`;

/** A health-only record, only where no record exists (an announced listing keeps its own). */
const WATCH = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'resource', ARGV[2], 'method', ARGV[3], 'status', 'listed', 'watch', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'toolName', ARGV[5], 'callArguments', ARGV[6]) end
redis.call('ZADD', KEYS[2], 'NX', ARGV[7], ARGV[1])
return 1`;

/**
 * Per-host pacing that holds at the host, whatever the delay between a probe's start and its
 * request arriving there: a host's sorted set holds each probe with its end time (while it runs,
 * its deadline). A probe may start only while fewer than ARGV[3] probes ended within the last
 * second or are still running. Any ARGV[3] + 1 requests arriving within one second would include
 * a last-started one whose start saw all the others running or ended less than a second before:
 * it would not have started. (A window of starts alone, per calendar second or sliding, let
 * unevenly delayed connections arrive closer together than their starts: 6 in one second at rate 5.)
 */
const HOST_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (tonumber(ARGV[1]) - 1000))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 1000)
return 1`;

type ScriptedRedis = RedisClient & {
  probeHostSlot(key: string, now: number, holdMs: number, limit: number, member: string): Promise<number>;
  announceEnqueue(...args: Array<string | number>): Promise<[number, string]>;
  probeClaim(...args: Array<string | number>): Promise<string[]>;
  probeWatch(...args: Array<string | number>): Promise<number>;
};

const NUMBER_FIELDS = ['announcedAt', 'lastProbedAt', 'listedAt', 'nextProbeAt', 'failures'] as const;

export class ProbeStore {
  private readonly redis: ScriptedRedis;

  private readonly keys: RedisKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.keys = redisKeys(prefix);
    if (!('announceEnqueue' in redis)) redis.defineCommand('announceEnqueue', { numberOfKeys: 4, lua: ENQUEUE });
    if (!('probeClaim' in redis)) redis.defineCommand('probeClaim', { numberOfKeys: 1, lua: CLAIM });
    if (!('probeWatch' in redis)) redis.defineCommand('probeWatch', { numberOfKeys: 2, lua: WATCH });
    if (!('probeHostSlot' in redis)) redis.defineCommand('probeHostSlot', { numberOfKeys: 1, lua: HOST_SLOT });
    this.redis = redis as ScriptedRedis;
  }

  private recordKey(id: string): string {
    return this.keys.probeRecord(id);
  }

  private get dueKey(): string {
    return this.keys.probeDue;
  }

  /** Queues a probe unless one for this id ran or was queued within `minIntervalMs`. */
  async enqueue(request: EnqueueRequest): Promise<{ queued: boolean; status: ProbeStatus }> {
    const [queued, status] = await this.redis.announceEnqueue(
      this.keys.probeLock(request.id),
      this.recordKey(request.id),
      this.dueKey,
      request.aliasId ? this.keys.probeAlias(request.aliasId) : this.recordKey(request.id),
      Math.max(1, request.minIntervalMs),
      request.now,
      request.id,
      request.resource,
      request.method,
      request.routeTemplate ?? '',
      request.expected ?? '',
      request.provenance ?? '',
      request.claim ? '1' : '0',
      request.claim ? request.now - request.claim.rejectedRetryMs : 0,
      request.claim?.source ?? '',
    );
    await replicated(this.redis, this.dueKey);
    return { queued: queued === 1, status: status as ProbeStatus };
  }

  /** Puts a listing nobody announced on the health schedule; false when it already has a record. */
  async watch(request: WatchRequest): Promise<boolean> {
    const created = await this.redis.probeWatch(
      this.recordKey(request.id),
      this.dueKey,
      request.id,
      request.resource,
      request.method,
      request.watch,
      request.toolName ?? '',
      request.callArguments ?? '',
      request.dueAt,
    );
    return created === 1;
  }

  /** Lets lookups by `aliasId` find the record of `id` (a templated listing found by its announce). */
  async setAlias(aliasId: string, id: string): Promise<void> {
    await this.redis.set(this.keys.probeAlias(aliasId), id, 'EX', 30 * 86_400);
  }

  async resolveAlias(id: string): Promise<string> {
    return (await this.redis.get(this.keys.probeAlias(id))) ?? id;
  }

  async get(id: string): Promise<ProbeRecord | undefined> {
    const [hash, due] = await Promise.all([this.redis.hgetall(this.recordKey(id)), this.redis.zscore(this.dueKey, id)]);
    if (!hash.id || !hash.resource) return undefined;
    const record: ProbeRecord = {
      id: hash.id,
      resource: hash.resource,
      method: hash.method || 'GET',
      status: (hash.status as ProbeStatus) || 'pending',
      failures: 0,
    };
    if (hash.routeTemplate) record.routeTemplate = hash.routeTemplate;
    if (hash.listingId) record.listingId = hash.listingId;
    if (hash.reason) record.reason = hash.reason;
    if (hash.detail) record.detail = hash.detail;
    if (hash.expected) record.expected = hash.expected;
    if (hash.verifiedResource) record.verifiedResource = hash.verifiedResource;
    if (hash.verifiedMethod) record.verifiedMethod = hash.verifiedMethod;
    if (hash.watch === 'http' || hash.watch === 'mcp') record.watch = hash.watch;
    if (hash.toolName) record.toolName = hash.toolName;
    if (hash.callArguments) record.callArguments = hash.callArguments;
    if (hash.provenance) record.provenance = hash.provenance;
    if (hash.lastClaim) record.lastClaim = hash.lastClaim;
    for (const field of NUMBER_FIELDS) if (hash[field]) record[field] = Number(hash[field]);
    if (due !== null) record.nextProbeAt = Number(due);
    return record;
  }

  /** Takes up to `limit` due ids; they come back due after `leaseMs` unless `finish` reschedules them. */
  async claimDue(now: number, limit: number, leaseMs: number): Promise<string[]> {
    return this.redis.probeClaim(this.dueKey, now, limit, now + leaseMs);
  }

  /**
   * Stores a probe's outcome. `nextProbeAt` keeps the id on the calendar; undefined takes it off.
   * Records of resources that are not listed expire after `forgetAfterMs`, so junk announces do
   * not accumulate.
   */
  async finish(
    id: string,
    update: Partial<Omit<ProbeRecord, 'id' | 'nextProbeAt'>>,
    options: { nextProbeAt?: number; clear?: Array<keyof ProbeRecord>; forgetAfterMs?: number },
  ): Promise<void> {
    const key = this.recordKey(id);
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(update)) if (value !== undefined) fields[name] = String(value);
    const tx = this.redis.multi();
    if (Object.keys(fields).length > 0) tx.hset(key, fields);
    if (options.clear?.length) tx.hdel(key, ...options.clear);
    if (options.nextProbeAt !== undefined) tx.zadd(this.dueKey, options.nextProbeAt, id);
    else tx.zrem(this.dueKey, id);
    if (options.forgetAfterMs !== undefined) tx.pexpire(key, options.forgetAfterMs);
    else tx.persist(key);
    await tx.exec();
  }

  /**
   * A slot for one request to `host` now, counted across instances: at most `perSecond` requests
   * running or ended within the last second. Resolves with the slot's token (give it back with
   * `releaseHostSlot` when the request ended; unreleased, it counts until `holdMs` passed), or
   * undefined when the host is at its rate.
   */
  async takeHostSlot(host: string, now: number, perSecond: number, holdMs: number): Promise<string | undefined> {
    const token = `${now}:${Math.random().toString(36).slice(2, 10)}`;
    return (await this.redis.probeHostSlot(this.keys.probeHostWindow(host), now, holdMs, perSecond, token)) === 1 ? token : undefined;
  }

  /** The request of a slot ended at `now`: it counts for one more second from then. */
  async releaseHostSlot(host: string, token: string, now: number): Promise<void> {
    await this.redis.zadd(this.keys.probeHostWindow(host), 'XX', now, token);
  }

  /** Moves a due id later without touching its record (a host over its probe rate). */
  async postpone(id: string, at: number): Promise<void> {
    await this.redis.zadd(this.dueKey, 'XX', at, id);
  }

  /** Drops the schedule entry of an id whose record is gone (expired or never written). */
  async unschedule(id: string): Promise<void> {
    await this.redis.zrem(this.dueKey, id);
  }

  /** Ids due at `now` (the probe backlog), or the whole calendar without `now`. */
  async dueCount(now?: number): Promise<number> {
    return now === undefined ? this.redis.zcard(this.dueKey) : this.redis.zcount(this.dueKey, '-inf', now);
  }
}
