/**
 * What the service keeps in Redis, measured against what it may keep (issue 43, item 4: every
 * store of untrusted input is bounded). Every key under the deployment's prefix belongs to one
 * family of store/redis/redisKeys.ts; each family has a bound per key (Redis's own MEMORY USAGE, so
 * encoding overhead counts) and, where a caller's input creates keys, a time to live. A key of no
 * family, a key over its bound, or a per-input key that never expires fails the fuzz.
 */
import type { RedisClient } from '../../src/door.js';

const KIB = 1024;

export interface Family {
  name: string;
  /** The key name after the prefix and the hash tag. */
  match: RegExp;
  /** Most bytes one key may take (MEMORY USAGE); undefined for the queues and indexes that grow with the catalog itself. */
  maxBytes?: number;
  /** Keys made per caller input must expire (or be deleted by the service). */
  expires?: boolean;
  /** Why the bound holds (the report says it). */
  because: string;
}

export const FAMILIES: Family[] = [
  { name: 'write stream', match: /^catalog:writes$/, because: 'a durable queue of validated writes, drained by the consumer (checked empty after the run)' },
  { name: 'dead letters', match: /^catalog:writes:dead$/, because: 'capped at 100,000 entries (MAXLEN ~)' },
  { name: 'write failures', match: /^catalog:writes:failures$/, maxBytes: 1024 * KIB, because: 'one counter per failing entry, cleared when it is applied or dead-lettered' },
  { name: 'live ids', match: /^catalog:live$/, because: 'one id per listing: grows with the catalog, not with requests' },
  { name: 'consumer heartbeat', match: /^catalog:consumer:/, maxBytes: 2 * KIB, expires: true, because: 'one small value per consumer' },
  { name: 'listing history', match: /^catalog:history:(?!state$)/, maxBytes: 256 * KIB, because: 'capped list of events per listing (LTRIM)' },
  { name: 'history state', match: /^catalog:history:state$/, because: 'one field per listing' },
  { name: 'change feed', match: /^catalog:changes(:latest|:seeded|:epoch)?$/, because: 'one entry per listing (its latest change), not per request' },
  { name: 'probe record', match: /^probe:rec:/, maxBytes: 64 * KIB, because: 'resource 2,048 characters, announced accepts at most 32, detail 500; unlisted records expire' },
  { name: 'probe calendar', match: /^probe:due$/, because: 'one entry per probe record' },
  { name: 'probe lock', match: /^probe:lock:/, maxBytes: 1 * KIB, expires: true, because: 'one per id and PROBE_MIN_INTERVAL_MS' },
  { name: 'probe alias', match: /^probe:alias:/, maxBytes: 1 * KIB, expires: true, because: 'one per templated id, 30 days' },
  { name: 'probe pacing', match: /^probe:host:/, maxBytes: 16 * KIB, expires: true, because: 'per resolved address: at most PROBE_HOST_RATE entries, a second' },
  { name: 'settlement results', match: /^settle:(result|lock):/, maxBytes: 64 * KIB, expires: true, because: 'one answer per payment payload (8 days) and its lock while it settles' },
  { name: 'transaction journal', match: /^settle:tx:/, maxBytes: 8 * KIB, expires: true, because: 'one signed transaction and its hash per authorization settled on chain (8 days, as the results)' },
  { name: 'facilitator sender', match: /^settle:sender:/, maxBytes: 1 * KIB, expires: true, because: "per (network, facilitator address): the send lock (seconds) and the next nonce (minutes)" },
  { name: 'settlement log', match: /^settlements:(tx|payee):/, maxBytes: 1024 * KIB, expires: true, because: 'each mined settlement by hash and per payTo its newest 1,000, 30 days (GET /settlements)' },
  { name: 'seller tokens', match: /^seller-token/, maxBytes: 16 * KIB, because: 'issued by the operator only' },
  { name: 'signals', match: /^signals:lst_[0-9a-f]{24}:/, maxBytes: 128 * KIB, expires: true, because: 'hourly buckets, 1,000 amounts, 16 top payers, HyperLogLogs (12 KB at most); all expire' },
  { name: 'signals bookkeeping', match: /^signals:(dirty|aging)$/, because: 'one entry per listing with counts to flush or to age' },
  { name: 'pending credits', match: /^credits:pending(:at)?$/, maxBytes: 48 * 1024 * KIB, because: 'at most 5,000 listings of 16 settlements, 15 minutes' },
  { name: 'sponsor spend', match: /^sponsor:(spent|circular):/, maxBytes: 16 * 1024 * KIB, expires: true, because: 'one entry per payer or payee per day, two days' },
  { name: 'sponsor funders', match: /^sponsor:funders:/, maxBytes: 16 * KIB, expires: true, because: 'at most 64 funders per address, the circle window' },
  { name: 'seller opt-out', match: /^optout:lst_[0-9a-f]{24}$/, maxBytes: 4 * KIB, because: 'resource 2,048 characters and reason 200, set only by the seller' },
  { name: 'published owner', match: /^published-owner:/, maxBytes: 1 * KIB, because: 'one per published tool' },
  { name: 'cursor secret', match: /^cursor-secret$/, maxBytes: 1 * KIB, because: 'one value' },
  { name: 'rate limit', match: /^ratelimit:/, maxBytes: 1 * KIB, expires: true, because: 'one counter per budget, window and client' },
  { name: 'payer payments', match: /^\{?ratelimit:[a-z]+-payer:/, maxBytes: 1 * KIB, expires: true, because: 'one counter and one mark per payment, a window' },
  { name: 'lease', match: /^lease:/, maxBytes: 1 * KIB, expires: true, because: 'one per leased worker' },
  { name: 'upstream state', match: /^reach:(upstream|pages):/, maxBytes: 256 * KIB, because: 'per configured upstream' },
  { name: 'origin record', match: /^reach:origin:/, maxBytes: 96 * KIB, expires: true, because: 'queued resources (MANIFEST_MAX_RESOURCES), 10 skipped, counts; 7 days' },
];

export interface FamilyReport {
  keys: number;
  maxBytes: number;
  bound?: number;
  because: string;
}

export interface StoredReport {
  keys: number;
  families: Record<string, FamilyReport>;
  overBound: Array<{ key: string; bytes: number; bound: number }>;
  neverExpires: string[];
  unknown: string[];
}

/** Every key under `prefix`, its family, its size and its time to live (a single Redis). */
export async function measureStores(redis: RedisClient, prefix: string): Promise<StoredReport> {
  const report: StoredReport = { keys: 0, families: {}, overBound: [], neverExpires: [], unknown: [] };
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      report.keys += 1;
      const raw = key.slice(prefix.length);
      // A payer's payment keys are named after their own tag (store/redis/redisKeys.ts ownSlot).
      const name = /^\{ratelimit:[a-z]+-payer:/.test(raw) ? raw : raw.replace(/^\{[^}]*\}/, '');
      const family = FAMILIES.find((f) => f.match.test(name));
      if (!family) {
        report.unknown.push(name);
        continue;
      }
      const [bytes, ttl] = await Promise.all([redis.memory('USAGE', key, 'SAMPLES', 0) as Promise<number | null>, redis.pttl(key)]);
      const entry = (report.families[family.name] ??= { keys: 0, maxBytes: 0, ...(family.maxBytes ? { bound: family.maxBytes } : {}), because: family.because });
      entry.keys += 1;
      entry.maxBytes = Math.max(entry.maxBytes, bytes ?? 0);
      if (family.maxBytes !== undefined && (bytes ?? 0) > family.maxBytes) report.overBound.push({ key: name.slice(0, 120), bytes: bytes ?? 0, bound: family.maxBytes });
      if (family.expires && ttl === -1) report.neverExpires.push(name.slice(0, 120));
    }
  } while (cursor !== '0');
  return report;
}
