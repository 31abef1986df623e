/**
 * Service configuration, read from environment variables and validated once at startup.
 * Every bad value is reported (all of them, one line each) before the process exits, so an operator
 * fixes a deployment in one go instead of one restart per typo.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { clusterUrl, redisUrlProblem } from './core/redisTarget.js';
import { DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODEL_NAMES, defaultModelDirectory } from './semantic/embeddingModels.js';

export interface Config {
  host: string;
  port: number;
  /** One Elasticsearch node URL, or several comma-separated (a cluster): see `commaList`. */
  elasticsearchUrl: string;
  /** One Redis (`redis://`, `rediss://`) or Redis Cluster seeds (`redis+cluster://h:p,h:p`; REDIS_CLUSTER_NODES). */
  redisUrl: string;
  /** Alias every read and write goes through; the versioned index behind it is `listingsIndex`. */
  listingsAlias: string;
  listingsIndex: string;
  /** Shards and replicas of a listing index this service creates (docs/elasticsearch-cluster.md). */
  listingsLayout: IndexLayout;
  /** Prefix of every Redis key this service owns, so several deployments or test runs share one Redis. */
  redisPrefix: string;
  logLevel: string;
  bodyLimitBytes: number;
  /** The catalog's durable write stream consumer (docs/catalog-write.md). */
  catalogIngest: CatalogIngestSettings;
  /** How often the ranking tunables are re-read from the index (README "Ranking": a change applies within 10 s). */
  rankingRefreshMs: number;
  /** Catalog reads answered from memory for this long after an identical one (0: off; docs/catalog-reads.md "Read cache"). */
  readCacheMs: number;
  readCacheEntries: number;
  /** JSON responses at least this large are compressed for clients that accept it (README "Compression"). */
  compressMinBytes: number;
  /** Which sentence-embedding model semantic retrieval runs (src/semantic/embeddingModels.ts). */
  embeddingModel: string;
  /** Where that model is unpacked (scripts/services.sh); missing: semantic retrieval off. */
  embeddingModelDir: string;
  /** The embedding worker (src/semantic/embeddingWorker.ts): listings per model run, poll interval when none wait. */
  embedding: { batchSize: number; idleMs: number };
  /** Key that signs page cursors; unset: a generated secret kept in Redis (docs/catalog-reads.md). */
  cursorSecret?: string;
  shutdownGraceMs: number;
  /** Announce, probe, re-probe and staleness (issue 5; docs/announce.md). */
  announce: AnnounceSettings;
  /** Upstream catalogs and site manifests (issue 25; docs/reach.md). */
  reach: ReachSettings;
  /** Redis rate limits per route; `undefined` means off (docs/announce.md). */
  rateLimits: RateLimitSettings;
  /** Facilitator (issue 4): CAIP-2 networks settled on the service's own test ledger. */
  facilitatorNetworks: string[];
  /** Address advertised in /supported `signers` and as the `upto` witness facilitator. */
  facilitatorAddress: string;
  /** Simulated network fee each settlement pays from the sponsor balance, in wei. */
  settlementFeeWei: bigint;
  /** Sponsor balance (wei) seeded once when the ledger has none; the faucet tops it up. */
  sponsorInitialWei: bigint;
  /** Below this sponsor balance (wei) /metrics raises facilitator_sponsor_below_floor (issue 9). */
  sponsorFloorWei: bigint;
  /** Per listing and UTC day, a payer's settlements and verifications count toward signals at most this often (issue 9). */
  signalsPayerDailyCap: number;
  /** How often changed listing signals are flushed to Elasticsearch (docs/facilitator.md, "Signals": at least every 5 s). */
  signalsFlushMs: number;
  /** Traffic cataloging re-sends an unchanged listing at most this often per process. */
  trafficRefreshMs: number;
  /** How long a duplicate /settle waits for the settlement in progress before answering settlement_pending. */
  settlePendingWaitMs: number;
  /**
   * TRUST_PROXY: the proxies (addresses, CIDRs or Express's loopback/linklocal/uniquelocal) whose
   * X-Forwarded-For names the client; empty: the socket address is the client (README "Configuration").
   */
  trustProxy: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads one variable with a parser; a parser returns an error message instead of throwing. */
export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback: string, check?: (v: string) => string | undefined): string {
    const raw = this.env[name];
    const value = raw === undefined || raw === '' ? fallback : raw;
    const problem = check?.(value);
    if (problem) this.problems.push(`${name}=${JSON.stringify(value)}: ${problem}`);
    return value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^-?\d+$/.test(raw.trim())) {
      this.problems.push(`${name}=${JSON.stringify(raw)}: must be an integer between ${min} and ${max}`);
      return fallback;
    }
    const value = Number(raw.trim());
    if (value < min || value > max) {
      this.problems.push(`${name}=${JSON.stringify(raw)}: must be an integer between ${min} and ${max}`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.string(name, fallback, (v) =>
      (allowed as readonly string[]).includes(v) ? undefined : `must be one of ${allowed.join(', ')}`,
    );
    return value as T;
  }
}

/** `a, b,,c` -> `['a', 'b', 'c']`: the form of every list-valued variable. */
export function commaList(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter(Boolean);
}

/** Several URLs, comma-separated, each checked like `checkUrl`. */
export function checkUrlList(protocols: string[]) {
  const one = checkUrl(protocols);
  return (value: string): string | undefined => {
    const urls = commaList(value);
    if (urls.length === 0) return `must be a URL (${protocols.join(' or ')}) or a comma-separated list of them`;
    if (urls.length === 1) return one(urls[0]!);
    const bad = urls.map((url) => [url, one(url)] as const).filter(([, problem]) => problem !== undefined);
    return bad.length > 0 ? bad.map(([url, problem]) => `${url}: ${problem}`).join('; ') : undefined;
  };
}

export function checkUrl(protocols: string[]) {
  return (value: string): string | undefined => {
    try {
      const url = new URL(value);
      return protocols.includes(url.protocol) ? undefined : `must be a ${protocols.join(' or ')} URL`;
    } catch {
      return `must be a URL (${protocols.join(' or ')})`;
    }
  };
}

const indexName = (value: string): string | undefined =>
  /^[a-z0-9][a-z0-9._-]*$/.test(value) && value.length <= 200
    ? undefined
    : 'must be a lower-case Elasticsearch index name (letters, digits, . _ -)';

/** Ledger amounts are Redis integers: non-negative and within int64. */
const weiAmount = (value: string): string | undefined =>
  /^[0-9]{1,19}$/.test(value) && BigInt(value) <= 9_223_372_036_854_775_807n
    ? undefined
    : 'must be a non-negative integer amount of wei below 2^63';

function readWei(read: EnvReader, name: string, fallback: string): bigint {
  const value = read.string(name, fallback, weiAmount);
  return weiAmount(value) === undefined ? BigInt(value) : BigInt(fallback);
}

export interface AnnounceSettings {
  /** PROBE_ALLOW: CIDRs or host:port the probe may reach although they are not public. */
  probeAllow: string[];
  probeTimeoutMs: number;
  probeMaxBodyBytes: number;
  /** One URL is probed at most once per this interval, however often it is announced. */
  probeMinIntervalMs: number;
  probeConcurrency: number;
  /** Probes per second to one host (all instances); announce is open, so it must not become a way to flood a site. */
  probeHostRatePerSecond: number;
  /** Listed resources are re-probed about this often (spread +-10%). */
  reprobeIntervalMs: number;
  /** Consecutive transient probe failures (timeout, refused, 5xx) before a listing is removed. */
  probeFailuresBeforeRemoval: number;
  /**
   * Active health (issue 13): a listed resource settled in the last 7 days is re-checked this often,
   * any other listed resource `healthIdleIntervalMs`; each check is a re-probe (at most
   * `reprobeIntervalMs` apart either way).
   */
  healthActiveIntervalMs: number;
  healthIdleIntervalMs: number;
  /**
   * MCP_CHECK_SCHEME: how an MCP tool's server (`mcp://host/tool`) is reached for its health check,
   * at `<scheme>://host/mcp` (the seller SDK's Streamable HTTP path). https unless a local setup says http.
   */
  mcpCheckScheme: 'https' | 'http';
  /** Listings with neither a 402 report nor a settlement for this long are removed as stale. */
  staleAfterMs: number;
  staleSweepIntervalMs: number;
}

/** `limit` requests per `windowMs` per key (client address or token), fixed window. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

export interface RateLimitSettings {
  announce?: RateLimitRule;
  publish?: RateLimitRule;
  publishPerToken?: RateLimitRule;
  /** /discovery/search, /discovery/resources, /mcp/tools: off unless the operator sets it. */
  reads?: RateLimitRule;
  /** /verify and /settle (each its own budget), per client address (issue 9). */
  facilitator?: RateLimitRule;
  /** /verify and /settle (each its own budget), per payer wallet, counting distinct payments (issue 9). */
  facilitatorPayer?: RateLimitRule;
}

const WINDOW_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `120/1m`, `10/30s`, `off`. */
export function parseRateRule(value: string): RateLimitRule | undefined | string {
  if (value.trim().toLowerCase() === 'off') return undefined;
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,9})?\s*(ms|s|m|h)\s*$/.exec(value);
  if (!match || Number(match[1]) < 1) return 'must be "off" or <requests>/<window> such as 120/1m, 10/30s (units ms, s, m, h)';
  const windowMs = Number(match[2] ?? 1) * WINDOW_UNITS[match[3]!]!;
  if (windowMs < 100 || windowMs > 86_400_000) return 'the window must be between 100ms and 24h';
  return { limit: Number(match[1]), windowMs };
}

function readRateRule(read: EnvReader, name: string, fallback: string): RateLimitRule | undefined {
  const value = read.string(name, fallback, (v) => {
    const rule = parseRateRule(v);
    return typeof rule === 'string' ? rule : undefined;
  });
  const rule = parseRateRule(value);
  return typeof rule === 'string' ? undefined : rule;
}

const ALLOW_ENTRY = /^(?:[0-9a-fA-F:.]+\/\d{1,3}|(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5})$/;

function readAnnounceSettings(read: EnvReader): AnnounceSettings {
  const allow = read.string('PROBE_ALLOW', '', (v) => {
    const bad = v.split(',').map((e) => e.trim()).filter((e) => e && !ALLOW_ENTRY.test(e));
    return bad.length ? `entries must be CIDRs (10.0.0.0/8) or host:port (127.0.0.1:4021); not ${bad.join(', ')}` : undefined;
  });
  const settings: AnnounceSettings = {
    probeAllow: allow.split(',').map((e) => e.trim()).filter(Boolean),
    probeTimeoutMs: read.integer('PROBE_TIMEOUT_MS', 3000, 50, 30_000),
    probeMaxBodyBytes: read.integer('PROBE_MAX_BODY_BYTES', 64 * 1024, 1024, 1024 * 1024),
    probeMinIntervalMs: read.integer('PROBE_MIN_INTERVAL_MS', 60_000, 0, 86_400_000),
    probeConcurrency: read.integer('PROBE_CONCURRENCY', 16, 1, 256),
    probeHostRatePerSecond: read.integer('PROBE_HOST_RATE', 20, 1, 100_000),
    reprobeIntervalMs: read.integer('REPROBE_INTERVAL_MS', 86_400_000, 60_000, 30 * 86_400_000),
    probeFailuresBeforeRemoval: read.integer('PROBE_FAILURES_BEFORE_REMOVAL', 3, 1, 100),
    healthActiveIntervalMs: read.integer('HEALTH_ACTIVE_INTERVAL_MS', 15 * 60_000, 60_000, 86_400_000),
    healthIdleIntervalMs: read.integer('HEALTH_IDLE_INTERVAL_MS', 6 * 3_600_000, 60_000, 30 * 86_400_000),
    mcpCheckScheme: read.oneOf('MCP_CHECK_SCHEME', 'https', ['https', 'http'] as const),
    staleAfterMs: read.integer('STALE_AFTER_DAYS', 30, 1, 3650) * 86_400_000,
    staleSweepIntervalMs: read.integer('STALE_SWEEP_INTERVAL_MS', 60_000, 1000, 86_400_000),
  };
  // Active listings are the ones buyers use: checking them less often than idle ones is a typo.
  if (settings.healthActiveIntervalMs > settings.healthIdleIntervalMs) {
    read.problems.push(
      `HEALTH_ACTIVE_INTERVAL_MS=${settings.healthActiveIntervalMs}: must not exceed HEALTH_IDLE_INTERVAL_MS (${settings.healthIdleIntervalMs})`,
    );
  }
  return settings;
}

/** One Bazaar-compatible discovery endpoint this service lists from (after its own probe). */
export interface UpstreamSettings {
  /** Short name: the provenance of its listings, the metrics label, the status key. */
  name: string;
  /** The list endpoint itself, e.g. https://api.cdp.coinbase.com/platform/v2/x402/discovery/resources. */
  url: string;
  /** How often a full crawl starts (a crawl pages through the whole list, one request at a time). */
  intervalMs: number;
  pageSize: number;
}

export interface ReachSettings {
  upstreams: UpstreamSettings[];
  /** How often the poller looks for an upstream whose crawl is due. */
  tickMs: number;
  /** Pages per crawl at most (a runaway cursor never loops forever). */
  maxPages: number;
  timeoutMs: number;
  maxPageBytes: number;
  /** First retry after a failed crawl, doubled per failure up to `backoffMaxMs`. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** A claimed resource whose probe was refused is probed again at most this often. */
  rejectedRetryMs: number;
  /** Resources one origin's manifests may name (more are reported, not queued). */
  manifestMaxResources: number;
  manifestMaxBytes: number;
}

const UPSTREAM_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** `name=url` or a bare URL (named after its host), each once. */
function parseUpstreamEntry(entry: string, defaults: Pick<UpstreamSettings, 'intervalMs' | 'pageSize'>): UpstreamSettings | string {
  const match = /^([A-Za-z0-9_-]+)=(.+)$/.exec(entry);
  const url = (match ? match[2]! : entry).trim();
  const problem = checkUrl(['http:', 'https:'])(url);
  if (problem) return `${entry}: ${problem}`;
  const name = (match ? match[1]! : new URL(url).hostname.replace(/[^a-z0-9_-]/gi, '-')).toLowerCase().slice(0, 32);
  if (!UPSTREAM_NAME.test(name)) return `${entry}: the name must be letters, digits, _ or -`;
  return { name, url, ...defaults };
}

/** REACH_CONFIG: `{ "upstreams": [{ "name", "url", "intervalMs"?, "pageSize"? }] }`. */
function readUpstreamFile(path: string, defaults: Pick<UpstreamSettings, 'intervalMs' | 'pageSize'>): Array<UpstreamSettings | string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return [`cannot read it as JSON (${(err as Error).message})`];
  }
  const list = (parsed as { upstreams?: unknown })?.upstreams;
  if (!Array.isArray(list)) return ['must be an object with an "upstreams" array'];
  return list.map((raw: unknown, i) => {
    const item = raw as Partial<UpstreamSettings> | null;
    if (!item || typeof item.url !== 'string') return `upstreams[${i}]: needs a "url"`;
    const entry = parseUpstreamEntry(item.name ? `${item.name}=${item.url}` : item.url, defaults);
    if (typeof entry === 'string') return `upstreams[${i}]: ${entry}`;
    const interval = item.intervalMs ?? defaults.intervalMs;
    const pageSize = item.pageSize ?? defaults.pageSize;
    if (!Number.isInteger(interval) || interval < 1000) return `upstreams[${i}]: intervalMs must be an integer of at least 1000`;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) return `upstreams[${i}]: pageSize must be an integer from 1 to 1000`;
    return { ...entry, intervalMs: interval, pageSize };
  });
}

function readReachSettings(read: EnvReader, env: Env): ReachSettings {
  const defaults = {
    intervalMs: read.integer('REACH_INTERVAL_MS', 3_600_000, 1000, 7 * 86_400_000),
    pageSize: read.integer('REACH_PAGE_SIZE', 100, 1, 1000),
  };
  const entries = commaList(env.REACH_UPSTREAMS ?? '').map((e) => parseUpstreamEntry(e, defaults));
  const file = env.REACH_CONFIG?.trim();
  const fromFile = file ? readUpstreamFile(file, defaults) : [];
  for (const problem of entries.filter((e) => typeof e === 'string')) read.problems.push(`REACH_UPSTREAMS: ${problem}`);
  for (const problem of fromFile.filter((e) => typeof e === 'string')) read.problems.push(`REACH_CONFIG=${JSON.stringify(file)}: ${problem}`);
  const upstreams = [...entries, ...fromFile].filter((e): e is UpstreamSettings => typeof e !== 'string');
  const names = upstreams.map((u) => u.name);
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length > 0) read.problems.push(`REACH_UPSTREAMS/REACH_CONFIG: upstream names must be unique; ${[...new Set(twice)].join(', ')} given twice`);
  return {
    upstreams,
    tickMs: read.integer('REACH_TICK_MS', 5000, 10, 3_600_000),
    maxPages: read.integer('REACH_MAX_PAGES', 1000, 1, 100_000),
    timeoutMs: read.integer('REACH_TIMEOUT_MS', 10_000, 50, 120_000),
    maxPageBytes: read.integer('REACH_MAX_PAGE_BYTES', 8 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    backoffBaseMs: read.integer('REACH_BACKOFF_BASE_MS', 30_000, 10, 3_600_000),
    backoffMaxMs: read.integer('REACH_BACKOFF_MAX_MS', 6 * 3_600_000, 10, 7 * 86_400_000),
    rejectedRetryMs: read.integer('REACH_REJECTED_RETRY_MS', 86_400_000, 0, 30 * 86_400_000),
    manifestMaxResources: read.integer('MANIFEST_MAX_RESOURCES', 100, 1, 10_000),
    manifestMaxBytes: read.integer('MANIFEST_MAX_BYTES', 512 * 1024, 1024, 16 * 1024 * 1024),
  };
}

export interface IndexLayout {
  /** Primary shards: fixed when an index is created; a change takes `npm run reindex`. */
  shards: number;
  /** Copies of each shard on other nodes; applied to the live index at startup. */
  replicas: number;
}

export interface CatalogIngestSettings {
  /** Stream entries applied per Elasticsearch `_bulk`. */
  batchSize: number;
  /** Batches in flight at once (never two touching the same listing). */
  concurrency: number;
  /** How long one read waits for new writes; short, so a write is applied as soon as it arrives. */
  blockMs: number;
  /** Attempts Elasticsearch may reject an entry before it moves to the dead-letter stream. */
  maxAttempts: number;
  /** Entries another consumer received and left unacknowledged this long are taken over. */
  claimIdleMs: number;
  /**
   * How long a stopping consumer waits for the batches it is applying; what is still in flight
   * then stays unacknowledged in the stream, and another consumer (or the next start) applies it.
   */
  stopWaitMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

function readCatalogIngestSettings(read: EnvReader): CatalogIngestSettings {
  return {
    batchSize: read.integer('CATALOG_BATCH_SIZE', 1000, 1, 10_000),
    concurrency: read.integer('CATALOG_CONCURRENCY', 2, 1, 16),
    blockMs: read.integer('CATALOG_BLOCK_MS', 200, 1, 5000),
    maxAttempts: read.integer('CATALOG_MAX_ATTEMPTS', 5, 1, 1000),
    claimIdleMs: read.integer('CATALOG_CLAIM_IDLE_MS', 30_000, 10, 3_600_000),
    stopWaitMs: read.integer('CATALOG_STOP_WAIT_MS', 3000, 0, 120_000),
    retryBaseMs: read.integer('CATALOG_RETRY_BASE_MS', 200, 1, 60_000),
    retryMaxMs: read.integer('CATALOG_RETRY_MAX_MS', 5000, 1, 300_000),
  };
}

const PROXY_PRESETS = ['loopback', 'linklocal', 'uniquelocal'];

/** One TRUST_PROXY entry: a preset name, an IP address, or an address with a prefix length. */
function proxyEntryProblem(entry: string): string | undefined {
  if (PROXY_PRESETS.includes(entry)) return undefined;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  const maxPrefix = family === 4 ? 32 : 128;
  if (family !== 0 && rest.length === 0 && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix))) return undefined;
  return entry;
}

function readTrustProxy(read: EnvReader): string[] {
  const value = read.string('TRUST_PROXY', 'off', (v) => {
    if (v.trim().toLowerCase() === 'off') return undefined;
    const bad = v.split(',').map((e) => e.trim()).filter((e) => proxyEntryProblem(e) !== undefined);
    return bad.length ? `must be "off" or a comma-separated list of proxy addresses, CIDRs or ${PROXY_PRESETS.join('/')}; not ${bad.join(', ')}` : undefined;
  });
  if (value.trim().toLowerCase() === 'off') return [];
  const entries = value.split(',').map((e) => e.trim());
  return entries.every((e) => proxyEntryProblem(e) === undefined) ? entries : [];
}

/** REDIS_CLUSTER_NODES (a Cluster's seed nodes) wins over REDIS_URL; a single Redis stays the default. */
function readRedisUrl(read: EnvReader, env: Env): string {
  const nodes = env.REDIS_CLUSTER_NODES?.trim();
  if (nodes) return clusterUrl(read.string('REDIS_CLUSTER_NODES', '', (v) => redisUrlProblem(clusterUrl(v))));
  return read.string('REDIS_URL', 'redis://127.0.0.1:6379', redisUrlProblem);
}

export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const embeddingModel = read.oneOf('EMBEDDING_MODEL', DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODEL_NAMES);
  const config: Config = {
    host: read.string('HOST', '127.0.0.1'),
    port: read.integer('PORT', 8080, 0, 65535),
    elasticsearchUrl: read.string('ELASTICSEARCH_URL', 'http://127.0.0.1:9200', checkUrlList(['http:', 'https:'])),
    redisUrl: readRedisUrl(read, env),
    listingsAlias: read.string('LISTINGS_ALIAS', 'listings', indexName),
    listingsIndex: read.string('LISTINGS_INDEX', 'listings-v1', indexName),
    // One node by default: a replica could never be allocated there (the index would stay yellow).
    listingsLayout: { shards: read.integer('LISTINGS_SHARDS', 1, 1, 128), replicas: read.integer('LISTINGS_REPLICAS', 0, 0, 8) },
    redisPrefix: read.string('REDIS_PREFIX', 'catalog:', (v) =>
      /^[A-Za-z0-9:_-]{1,64}$/.test(v) ? undefined : 'must be 1-64 characters of letters, digits, : _ -',
    ),
    logLevel: read.oneOf('LOG_LEVEL', 'info', ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const),
    bodyLimitBytes: read.integer('BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    catalogIngest: readCatalogIngestSettings(read),
    rankingRefreshMs: read.integer('RANKING_REFRESH_MS', 5000, 100, 10_000),
    readCacheMs: read.integer('READ_CACHE_MS', 1000, 0, 5000),
    readCacheEntries: read.integer('READ_CACHE_ENTRIES', 2000, 1, 100_000),
    compressMinBytes: read.integer('COMPRESS_MIN_BYTES', 32 * 1024, 0, 64 * 1024 * 1024),
    embeddingModel,
    embeddingModelDir: read.string('EMBEDDING_MODEL_DIR', defaultModelDirectory(embeddingModel)),
    embedding: {
      batchSize: read.integer('EMBEDDING_BATCH_SIZE', 32, 1, 1024),
      idleMs: read.integer('EMBEDDING_IDLE_MS', 1000, 10, 600_000),
    },
    cursorSecret:
      read.string('CURSOR_SECRET', '', (v) => (v === '' || v.length >= 16 ? undefined : 'must be at least 16 characters (or unset)')) ||
      undefined,
    shutdownGraceMs: read.integer('SHUTDOWN_GRACE_MS', 10_000, 0, 120_000),
    announce: readAnnounceSettings(read),
    reach: readReachSettings(read, env),
    rateLimits: {
      announce: readRateRule(read, 'RATE_LIMIT_ANNOUNCE', '600/1m'),
      publish: readRateRule(read, 'RATE_LIMIT_PUBLISH', '60/1m'),
      publishPerToken: readRateRule(read, 'RATE_LIMIT_PUBLISH_TOKEN', '120/1m'),
      reads: readRateRule(read, 'RATE_LIMIT_READS', 'off'),
      facilitator: readRateRule(read, 'RATE_LIMIT_FACILITATOR', '30000/1m'),
      facilitatorPayer: readRateRule(read, 'RATE_LIMIT_FACILITATOR_PAYER', '600/1m'),
    },
    facilitatorNetworks: read
      .string('FACILITATOR_NETWORKS', 'eip155:84532', (v) =>
        v.split(',').every((n) => /^eip155:[1-9][0-9]{0,15}$/.test(n.trim()))
          ? undefined
          : 'must be a comma-separated list of EVM CAIP-2 networks such as eip155:84532',
      )
      .split(',')
      .map((n) => n.trim()),
    facilitatorAddress: read.string('FACILITATOR_ADDRESS', '0xFAC1000000000000000000000000000000000402', (v) =>
      /^0x[0-9a-fA-F]{40}$/.test(v) ? undefined : 'must be a 0x-prefixed 20-byte hex address',
    ),
    settlementFeeWei: readWei(read, 'SETTLEMENT_FEE_WEI', '21000000000000'),
    sponsorInitialWei: readWei(read, 'SPONSOR_INITIAL_WEI', '1000000000000000000'),
    sponsorFloorWei: readWei(read, 'SPONSOR_FLOOR_WEI', '100000000000000000'),
    signalsPayerDailyCap: read.integer('SIGNALS_PAYER_DAILY_CAP', 10, 1, 1_000_000),
    signalsFlushMs: read.integer('SIGNALS_FLUSH_MS', 1000, 50, 5000),
    trafficRefreshMs: read.integer('TRAFFIC_REFRESH_MS', 60_000, 0, 86_400_000),
    settlePendingWaitMs: read.integer('SETTLE_PENDING_WAIT_MS', 15_000, 10, 60_000),
    trustProxy: readTrustProxy(read),
  };
  if (config.listingsAlias === config.listingsIndex) {
    read.problems.push('LISTINGS_ALIAS and LISTINGS_INDEX must differ: the alias points at the versioned index');
  }
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}
