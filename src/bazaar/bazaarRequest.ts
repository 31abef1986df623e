/**
 * Query strings of the x402 Bazaar surface (GET /x402/discovery/resources and /search) turned into
 * the catalog's own validated reads: the filters go through the same parser as the service's own endpoints
 * (one set of rules, one search path); only the Bazaar's own parameters are handled here: `query`
 * (our `q`), `offset`, an advisory `limit`, and the `extensions` filter. Errors are the same
 * problem+json codes as the native reads (docs/bazaar.md).
 */
import { InvalidInput, type FieldError } from '../core/errors.js';
import { MAX_LIMIT, type ReadRequest } from '../search/readRequest.js';
import { parseReadRequest } from '../search/readGrammar.js';

/**
 * Deepest `offset`: with any limit up to 100 (plus the one look-ahead hit) a page stays inside
 * Elasticsearch's 10,000-hit result window. Deeper pages: the native reads' cursors.
 */
export const BAZAAR_MAX_OFFSET = 9_000;

/** The only extension every cataloged resource carries (each item's `extensions.bazaar`). */
const CATALOG_EXTENSION = 'bazaar';

/** The Bazaar's own filters, and the catalog's "can I pay this?" pair (docs/catalog-reads.md "API", Can I pay this?). */
const SHARED_FILTERS = ['type', 'payTo', 'scheme', 'network', 'payWith', 'maxUsd'] as const;
const LIST_PARAMETERS = new Set<string>([...SHARED_FILTERS, 'extensions', 'limit', 'offset']);
const SEARCH_PARAMETERS = new Set<string>(['query', ...SHARED_FILTERS, 'extensions', 'limit', 'cursor']);

export interface BazaarRead {
  request: ReadRequest;
  offset: number;
  /** False when `extensions` names an extension no cataloged resource carries: the answer is empty. */
  matchesAny: boolean;
}

function single(query: Record<string, unknown>, name: string, errors: FieldError[]): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  errors.push({ path: name, message: 'must be given at most once' });
  return undefined;
}

function integer(query: Record<string, unknown>, name: string, min: number, max: number, errors: FieldError[]): number | undefined {
  const value = single(query, name, errors);
  if (value === undefined) return undefined;
  const number = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
  if (number >= min && number <= max) return number;
  errors.push({ path: name, message: `must be an integer from ${min} to ${max}` });
  return undefined;
}

function rejectUnknown(query: Record<string, unknown>, allowed: ReadonlySet<string>): void {
  const unknown = Object.keys(query).filter((name) => !allowed.has(name));
  if (unknown.length === 0) return;
  throw new InvalidInput('unknown_filter', `Unknown filter: ${unknown.join(', ')}. Allowed: ${[...allowed].join(', ')}.`, unknown.map((path) => ({ path, message: 'is not a known filter' })));
}

/**
 * The catalog read for the Bazaar parameters. `limit` is advisory in the Bazaar: above 100 it is
 * lowered to 100 (the answer's `pagination.limit` says so) rather than refused.
 */
function bazaarRead(kind: 'resources' | 'search', query: Record<string, unknown>, native: Record<string, unknown>): BazaarRead {
  const errors: FieldError[] = [];
  const limit = integer(query, 'limit', 1, 9_999_999, errors);
  const offset = kind === 'resources' ? integer(query, 'offset', 0, BAZAAR_MAX_OFFSET, errors) : undefined;
  const extension = single(query, 'extensions', errors);
  if (extension !== undefined && extension.trim() === '') errors.push({ path: 'extensions', message: 'must not be empty' });
  for (const name of SHARED_FILTERS) if (query[name] !== undefined) native[name] = query[name];
  if (limit !== undefined) native.limit = String(Math.min(limit, MAX_LIMIT));
  let request: ReadRequest | undefined;
  try {
    request = parseReadRequest(kind, native);
  } catch (err) {
    if (!(err instanceof InvalidInput) || err.code !== 'invalid_filter_value') throw err;
    // Our `q` is the Bazaar's `query`: name the parameter the client sent.
    errors.push(...err.fieldErrors.map((e) => (e.path === 'q' ? { ...e, path: 'query' } : e)));
  }
  if (errors.length > 0 || !request) {
    throw new InvalidInput('invalid_filter_value', `Invalid value for ${errors.map((e) => e.path).join(', ')}: ${errors[0]?.message}`, errors);
  }
  if (offset) request.offset = offset;
  return { request, offset: offset ?? 0, matchesAny: extension === undefined || extension.trim() === CATALOG_EXTENSION };
}

/** GET /x402/discovery/resources: filters, `limit`, `offset`; newest first, with the total count. */
export function parseBazaarList(query: Record<string, unknown>): BazaarRead {
  rejectUnknown(query, LIST_PARAMETERS);
  const read = bazaarRead('resources', query, {});
  read.request.countTotal = true;
  return read;
}

/** GET /x402/discovery/search: `query` (required), filters, `limit`, `cursor`; ranked as /discovery/search. */
export function parseBazaarSearch(query: Record<string, unknown>): BazaarRead {
  rejectUnknown(query, SEARCH_PARAMETERS);
  const text = query.query;
  if (text === undefined || (typeof text === 'string' && text.trim() === '')) {
    throw new InvalidInput('missing_query', 'The natural-language `query` is required and must not be empty.', [{ path: 'query', message: 'is required' }]);
  }
  const native: Record<string, unknown> = { q: text };
  if (query.cursor !== undefined) native.cursor = query.cursor;
  return bazaarRead('search', query, native);
}
