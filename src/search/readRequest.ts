/**
 * The validated form of a catalog read (GET /discovery/resources, /discovery/search, /mcp/tools).
 * Query strings are parsed here, strictly: an unknown parameter or a bad value never reaches
 * Elasticsearch (docs/catalog-reads.md "Validation").
 */
import { InvalidInput, type FieldError } from '../core/errors.js';
import { toCaip2Network } from '../x402/networks.js';
import type { ListingType, Scheme } from '../shapes/listing.js';
import { parseMaxUsd, parsePayWith } from './payableParameters.js';

export type SearchSort = 'rank' | 'price' | 'recent';

export interface CatalogFilters {
  network?: string;
  type?: ListingType;
  /** Base-10 integer string without leading zeros; absent when no ceiling applies. */
  maxPrice?: string;
  asset?: string;
  scheme?: Scheme;
  payTo?: string;
  capability?: string;
  /** 0..1: only listings whose health checks found a valid 402 at least this often (never-checked ones fail a value > 0). */
  minUptime?: number;
  /** Only listings with a payment option on one of these network/asset pairs (the buyer's holdings). */
  payWith?: Array<{ network: string; asset: string }>;
  /**
   * A cap in USDC base units (`maxUsd` times 10^6): only listings with a USDC option (any network
   * the service knows) whose price is at most this; `upto` options compare their expected price.
   */
  maxUsdUnits?: string;
}

export interface ReadRequest {
  /** resources: structured browse; search: ranked free text (/mcp/tools is search with type=mcp). */
  kind: 'resources' | 'search';
  q?: string;
  /** Only for search; resources always lists newest first. */
  sort?: SearchSort;
  explain: boolean;
  limit: number;
  cursor?: string;
  /**
   * Listings to skip before the page (the x402 Bazaar surface's `offset`, bounded there); never
   * together with `cursor`. The service's own reads page with cursors only.
   */
  offset?: number;
  /** Count every match (`hits.total`); off by default, the count costs a pass over all matches. */
  countTotal?: boolean;
  filters: CatalogFilters;
}

export type ReadEndpoint = 'resources' | 'search' | 'mcpTools';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const MAX_TEXT_LENGTH = 256;
export const MAX_QUERY_LENGTH = 512;
/** Largest value of an Elasticsearch `long`: a ceiling at or above it excludes nothing. */
const LONG_MAX = 9223372036854775807n;

const FILTERS = ['network', 'type', 'maxPrice', 'asset', 'scheme', 'payTo', 'capability', 'minUptime', 'payWith', 'maxUsd', 'limit', 'cursor'] as const;
const SEARCH_EXTRAS = ['q', 'sort', 'explain'] as const;

function allowedParameters(endpoint: ReadEndpoint): ReadonlySet<string> {
  return new Set<string>(endpoint === 'resources' ? FILTERS : [...FILTERS, ...SEARCH_EXTRAS]);
}

function invalid(errors: FieldError[]): InvalidInput {
  const names = errors.map((e) => e.path).join(', ');
  return new InvalidInput('invalid_filter_value', `Invalid value for ${names}: ${errors[0]!.message}`, errors);
}

/** Reads one parameter that must appear at most once (the `simple` query parser gives arrays for repeats). */
function single(query: Record<string, unknown>, name: string, errors: FieldError[]): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    errors.push({ path: name, message: 'must be given at most once' });
    return undefined;
  }
  return value;
}

function text(query: Record<string, unknown>, name: string, errors: FieldError[]): string | undefined {
  const value = single(query, name, errors);
  if (value === undefined) return undefined;
  if (value.trim() === '') errors.push({ path: name, message: 'must not be empty' });
  else if (value.length > MAX_TEXT_LENGTH) errors.push({ path: name, message: `must be at most ${MAX_TEXT_LENGTH} characters` });
  else if (/[\u0000-\u001f\u007f]/.test(value)) errors.push({ path: name, message: 'must not contain control characters' });
  else return value.trim();
  return undefined;
}

function oneOf<T extends string>(query: Record<string, unknown>, name: string, allowed: readonly T[], errors: FieldError[]): T | undefined {
  const value = single(query, name, errors);
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  errors.push({ path: name, message: `must be one of ${allowed.join(', ')}` });
  return undefined;
}

function parseLimit(query: Record<string, unknown>, errors: FieldError[]): number {
  const value = single(query, 'limit', errors);
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (limit >= 1 && limit <= MAX_LIMIT) return limit;
  errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  return DEFAULT_LIMIT;
}

/** `maxPrice`: a non-negative integer in the asset's smallest unit, compared as an integer. */
function parseMaxPrice(query: Record<string, unknown>, errors: FieldError[]): string | undefined {
  const value = single(query, 'maxPrice', errors);
  if (value === undefined) return undefined;
  if (!/^\d{1,200}$/.test(value)) {
    errors.push({ path: 'maxPrice', message: 'must be a non-negative integer amount in the asset\'s smallest unit' });
    return undefined;
  }
  const ceiling = BigInt(value);
  return ceiling >= LONG_MAX ? undefined : ceiling.toString();
}

/** `minUptime`: a decimal from 0 to 1 (`0.95`, `1`, `.5`); no exponents, signs or hex. */
function parseMinUptime(query: Record<string, unknown>, errors: FieldError[]): number | undefined {
  const value = single(query, 'minUptime', errors);
  if (value === undefined) return undefined;
  const uptime = /^(?:\d{1,3}(?:\.\d{0,12})?|\.\d{1,12})$/.test(value) ? Number(value) : NaN;
  if (uptime >= 0 && uptime <= 1) return uptime;
  errors.push({ path: 'minUptime', message: 'must be a number from 0 to 1 (share of health checks that found a valid 402)' });
  return undefined;
}

function parseNetwork(query: Record<string, unknown>, errors: FieldError[]): string | undefined {
  const value = text(query, 'network', errors);
  if (value === undefined) return undefined;
  const network = toCaip2Network(value);
  if (network === undefined) errors.push({ path: 'network', message: 'must be a CAIP-2 network id such as eip155:84532 (or a known x402 v1 name)' });
  return network;
}

function parseFilters(query: Record<string, unknown>, errors: FieldError[]): CatalogFilters {
  const filters: CatalogFilters = {};
  const set = <K extends keyof CatalogFilters>(key: K, value: CatalogFilters[K] | undefined) => {
    if (value !== undefined) filters[key] = value;
  };
  set('network', parseNetwork(query, errors));
  set('type', oneOf(query, 'type', ['http', 'mcp'] as const, errors));
  set('maxPrice', parseMaxPrice(query, errors));
  set('asset', text(query, 'asset', errors));
  set('scheme', oneOf(query, 'scheme', ['exact', 'upto'] as const, errors));
  set('payTo', text(query, 'payTo', errors));
  set('capability', text(query, 'capability', errors));
  set('minUptime', parseMinUptime(query, errors));
  set('payWith', parsePayWith(query, errors));
  set('maxUsdUnits', parseMaxUsd(single(query, 'maxUsd', errors), errors));
  return filters;
}

/**
 * Validates a read's query string. Order of checks: unknown parameters, then a missing `q`
 * (search), then every bad value at once, so one answer lists everything to fix.
 */
export function parseReadRequest(endpoint: ReadEndpoint, query: Record<string, unknown>): ReadRequest {
  const allowed = allowedParameters(endpoint);
  const unknown = Object.keys(query).filter((name) => !allowed.has(name));
  if (unknown.length > 0) {
    throw new InvalidInput(
      'unknown_filter',
      `Unknown filter: ${unknown.join(', ')}. Allowed: ${[...allowed].join(', ')}.`,
      unknown.map((path) => ({ path, message: 'is not a known filter' })),
    );
  }
  const errors: FieldError[] = [];
  const request: ReadRequest = { kind: endpoint === 'resources' ? 'resources' : 'search', explain: false, limit: DEFAULT_LIMIT, filters: {} };
  if (request.kind === 'search') {
    const q = query.q;
    if (q === undefined || (typeof q === 'string' && q.trim() === '')) {
      throw new InvalidInput('missing_query', 'The free-text query `q` is required and must not be empty.', [{ path: 'q', message: 'is required' }]);
    }
    const value = single(query, 'q', errors);
    if (value !== undefined && value.length > MAX_QUERY_LENGTH) errors.push({ path: 'q', message: `must be at most ${MAX_QUERY_LENGTH} characters` });
    else if (value !== undefined) request.q = value.trim();
    request.sort = oneOf(query, 'sort', ['rank', 'price', 'recent'] as const, errors) ?? 'rank';
    request.explain = oneOf(query, 'explain', ['0', '1'] as const, errors) === '1';
  }
  request.filters = parseFilters(query, errors);
  request.limit = parseLimit(query, errors);
  const cursor = single(query, 'cursor', errors);
  if (cursor !== undefined) request.cursor = cursor;
  if (endpoint === 'mcpTools') {
    // /mcp/tools is search pre-filtered to MCP tools: `type=mcp` is redundant, anything else contradicts it.
    if (request.filters.type !== undefined && request.filters.type !== 'mcp') {
      errors.push({ path: 'type', message: '/mcp/tools only lists MCP tools; type may only be mcp' });
    }
    request.filters.type = 'mcp';
  }
  if (errors.length > 0) throw invalid(errors);
  return request;
}
