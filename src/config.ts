/**
 * Service configuration, read from environment variables and validated once at startup.
 * Every bad value is reported (all of them, one line each) before the process exits, so an operator
 * fixes a deployment in one go instead of one restart per typo.
 */

export interface Config {
  host: string;
  port: number;
  elasticsearchUrl: string;
  redisUrl: string;
  /** Alias every read and write goes through; the versioned index behind it is `listingsIndex`. */
  listingsAlias: string;
  listingsIndex: string;
  /** Prefix of every Redis key this service owns, so several deployments or test runs share one Redis. */
  redisPrefix: string;
  logLevel: string;
  bodyLimitBytes: number;
  /** The catalog's durable write stream consumer (docs/catalog-write.md). */
  catalogIngest: CatalogIngestSettings;
  /** How often the ranking tunables are re-read from the index (DECISIONS: picked up within 10 s). */
  rankingRefreshMs: number;
  /** Key that signs page cursors; unset: a generated secret kept in Redis (docs/catalog-reads.md). */
  cursorSecret?: string;
  shutdownGraceMs: number;
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

export interface CatalogIngestSettings {
  /** Stream entries applied per Elasticsearch `_bulk`. */
  batchSize: number;
  /** How long one read waits for new writes; short, so a write is applied as soon as it arrives. */
  blockMs: number;
  /** Attempts Elasticsearch may reject an entry before it moves to the dead-letter stream. */
  maxAttempts: number;
  /** Entries another consumer received and left unacknowledged this long are taken over. */
  claimIdleMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

function readCatalogIngestSettings(read: EnvReader): CatalogIngestSettings {
  return {
    batchSize: read.integer('CATALOG_BATCH_SIZE', 1000, 1, 10_000),
    blockMs: read.integer('CATALOG_BLOCK_MS', 200, 1, 5000),
    maxAttempts: read.integer('CATALOG_MAX_ATTEMPTS', 5, 1, 1000),
    claimIdleMs: read.integer('CATALOG_CLAIM_IDLE_MS', 30_000, 10, 3_600_000),
    retryBaseMs: read.integer('CATALOG_RETRY_BASE_MS', 200, 1, 60_000),
    retryMaxMs: read.integer('CATALOG_RETRY_MAX_MS', 5000, 1, 300_000),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const config: Config = {
    host: read.string('HOST', '127.0.0.1'),
    port: read.integer('PORT', 8080, 0, 65535),
    elasticsearchUrl: read.string('ELASTICSEARCH_URL', 'http://127.0.0.1:9200', checkUrl(['http:', 'https:'])),
    redisUrl: read.string('REDIS_URL', 'redis://127.0.0.1:6379', checkUrl(['redis:', 'rediss:'])),
    listingsAlias: read.string('LISTINGS_ALIAS', 'listings', indexName),
    listingsIndex: read.string('LISTINGS_INDEX', 'listings-v1', indexName),
    redisPrefix: read.string('REDIS_PREFIX', 'catalog:', (v) =>
      /^[A-Za-z0-9:_-]{1,64}$/.test(v) ? undefined : 'must be 1-64 characters of letters, digits, : _ -',
    ),
    logLevel: read.oneOf('LOG_LEVEL', 'info', ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const),
    bodyLimitBytes: read.integer('BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    catalogIngest: readCatalogIngestSettings(read),
    rankingRefreshMs: read.integer('RANKING_REFRESH_MS', 5000, 100, 10_000),
    cursorSecret:
      read.string('CURSOR_SECRET', '', (v) => (v === '' || v.length >= 16 ? undefined : 'must be at least 16 characters (or unset)')) ||
      undefined,
    shutdownGraceMs: read.integer('SHUTDOWN_GRACE_MS', 10_000, 0, 120_000),
  };
  if (config.listingsAlias === config.listingsIndex) {
    read.problems.push('LISTINGS_ALIAS and LISTINGS_INDEX must differ: the alias points at the versioned index');
  }
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}
