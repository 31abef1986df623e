/**
 * Service configuration, read from environment variables and validated once at startup.
 * Every bad value is reported (all of them, one line each) before the process exits, so an operator
 * fixes a deployment in one go instead of one restart per typo.
 */
import { isIP } from 'node:net';
import { readAnnounceSettings, type AnnounceSettings } from './announceSettings.js';
import { checkUrlList, ConfigError, EnvReader, type Env } from './envReader.js';
import { readRateRule, type RateLimitSettings } from './rateLimitSettings.js';
import { readFederationSettings, type FederationSettings } from './federationSettings.js';
import { readSponsorshipSettings, type SponsorshipSettings } from './sponsorshipSettings.js';
import { readChainSettings, type ChainSettings } from './chainSettings.js';
import { clusterUrl, redisUrlProblem } from '../core/redisTarget.js';
import { DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODEL_NAMES, defaultModelDirectory } from './embeddingModels.js';

/** What loadConfig throws: every problem found, one line each. */
export { ConfigError };

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
  /** How often the ranking tunables are re-read from the index (docs/catalog-reads.md "Ranking": a change applies within 10 s). */
  rankingRefreshMs: number;
  /** Catalog reads answered from memory for this long after an identical one (0: off; docs/catalog-reads.md "Read cache"). */
  readCacheMs: number;
  readCacheEntries: number;
  /** A settlement links the payer's searches of this long before it to the paid listing (src/outcomes). */
  outcomeWindowMs: number;
  /** JSON responses at least this large are compressed for clients that accept it (docs/catalog-reads.md "Read cache and compression"). */
  compressMinBytes: number;
  /** Which sentence-embedding model semantic retrieval runs (src/config/embeddingModels.ts). */
  embeddingModel: string;
  /** Where that model is unpacked (scripts/services.sh); missing: semantic retrieval off. */
  embeddingModelDir: string;
  /** The embedding worker (src/semantic/embeddingWorker.ts): listings per round (one conditional _bulk), poll interval when none wait. */
  embedding: { batchSize: number; idleMs: number };
  /** Key that signs page cursors; unset: a generated secret kept in Redis (docs/catalog-reads.md). */
  cursorSecret?: string;
  shutdownGraceMs: number;
  /** Announce, probe, re-probe and staleness (issue 5; docs/announce.md). */
  announce: AnnounceSettings;
  /** Upstream catalogs and site manifests (issue 25; docs/federation.md). */
  federation: FederationSettings;
  /** Redis rate limits per route; `undefined` means off (docs/announce.md). */
  rateLimits: RateLimitSettings;
  /** Facilitator (issue 4): the CAIP-2 networks it settles on, with a facilitator key (without one, none is offered). */
  facilitatorNetworks: string[];
  /** Address advertised in /supported `signers` and as the `upto` witness facilitator (the key's address when one is configured). */
  facilitatorAddress: string;
  /** The chain each network settles on, once a facilitator key is configured (issue 44; docs/facilitator.md "Settlement"). */
  chain: ChainSettings;
  /** Below this sponsor balance (wei) /metrics raises facilitator_sponsor_below_floor; on a chain, settlement stops before it (issue 44). */
  sponsorFloorWei: bigint;
  /** What the sponsor pays for and for whom (issue 43: value that goes in circles cannot drain it). */
  sponsorship: SponsorshipSettings;
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

const indexName = (value: string): string | undefined =>
  /^[a-z0-9][a-z0-9._-]*$/.test(value) && value.length <= 200
    ? undefined
    : 'must be a lower-case Elasticsearch index name (letters, digits, . _ -)';

/** Wei amounts the sponsor ledger keeps are Redis integers: non-negative and within int64. */
const weiAmount = (value: string): string | undefined =>
  /^[0-9]{1,19}$/.test(value) && BigInt(value) <= 9_223_372_036_854_775_807n
    ? undefined
    : 'must be a non-negative integer amount of wei below 2^63';

/** 0.01 ETH: on Base Sepolia about 10,000 settlements at 1 gwei, enough warning to refill the account. */
const SPONSOR_FLOOR_DEFAULT = '10000000000000000';

function readWei(read: EnvReader, name: string, fallback: string): bigint {
  const value = read.string(name, fallback, weiAmount);
  return weiAmount(value) === undefined ? BigInt(value) : BigInt(fallback);
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
  /**
   * How long one blocking read waits for new writes (it returns as soon as one arrives, so this
   * sets no latency): how often an idle consumer wakes up to look again.
   */
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
    blockMs: read.integer('CATALOG_BLOCK_MS', 1000, 1, 5000),
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
  const facilitatorNetworks = read
    .string('FACILITATOR_NETWORKS', 'eip155:84532', (v) =>
      v.split(',').every((n) => /^eip155:[1-9][0-9]{0,15}$/.test(n.trim()))
        ? undefined
        : 'must be a comma-separated list of EVM CAIP-2 networks such as eip155:84532',
    )
    .split(',')
    .map((n) => n.trim());
  const chain = readChainSettings(read, env, facilitatorNetworks);
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
    outcomeWindowMs: read.integer('OUTCOME_WINDOW_MS', 30 * 60_000, 1000, 7 * 24 * 3600_000),
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
    federation: readFederationSettings(read, env),
    rateLimits: {
      announce: readRateRule(read, 'RATE_LIMIT_ANNOUNCE', '600/1m'),
      publish: readRateRule(read, 'RATE_LIMIT_PUBLISH', '60/1m'),
      publishPerToken: readRateRule(read, 'RATE_LIMIT_PUBLISH_TOKEN', '120/1m'),
      reads: readRateRule(read, 'RATE_LIMIT_READS', 'off'),
      facilitator: readRateRule(read, 'RATE_LIMIT_FACILITATOR', '30000/1m'),
      facilitatorPayer: readRateRule(read, 'RATE_LIMIT_FACILITATOR_PAYER', '600/1m'),
    },
    facilitatorNetworks,
    facilitatorAddress: chain.address ?? read.string('FACILITATOR_ADDRESS', '0xFAC1000000000000000000000000000000000402', (v) =>
      /^0x[0-9a-fA-F]{40}$/.test(v) ? undefined : 'must be a 0x-prefixed 20-byte hex address',
    ),
    chain,
    sponsorFloorWei: readWei(read, 'SPONSOR_FLOOR_WEI', SPONSOR_FLOOR_DEFAULT),
    sponsorship: readSponsorshipSettings(read, readWei(read, 'SPONSOR_FLOOR_WEI', SPONSOR_FLOOR_DEFAULT)),
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
