/** Upstream catalogs and origin manifests (src/federation): their settings from the environment and REACH_CONFIG. */
import { readFileSync } from 'node:fs';
import { checkUrl, commaList, type Env, type EnvReader } from './envReader.js';

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

export interface FederationSettings {
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

export function readFederationSettings(read: EnvReader, env: Env): FederationSettings {
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
