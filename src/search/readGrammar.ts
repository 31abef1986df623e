/**
 * The read grammar: every parameter of the catalog reads, declared once. The HTTP parser
 * (`parseReadRequest`, below), the OpenAPI document (openapi/paths/catalog.ts) and the MCP
 * discovery tools' input schemas (mcp/discoveryTools.ts) are generated from this table, so a
 * parameter cannot be accepted by one and unknown to another, nor bounded differently.
 *
 * Each parameter has the JSON Schema of its query-string form (OpenAPI) and, where a tool
 * argument is typed otherwise (`maxPrice` 5000, `explain` true), of its argument form (MCP);
 * one reader takes either, a number or a boolean being given its query-string form first.
 */
import { InvalidInput, type FieldError } from '../core/errors.js';
import { MAX_PAY_WITH, parseMaxUsd, parsePayWith } from './payableParameters.js';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERY_LENGTH, MAX_TEXT_LENGTH, PAYER_HEADER, type CatalogFilters, type ReadEndpoint, type ReadRequest } from './readRequest.js';
import * as values from './readValues.js';

type Json = Record<string, unknown>;

export interface ReadParameter {
  readonly name: string;
  /** every: all catalog reads; search: ranked searches only (/discovery/search, /mcp/tools, search_resources). */
  readonly scope: 'every' | 'search';
  readonly required?: true;
  /** What it means, for the OpenAPI document (and the tools, unless `toolDescription`). */
  readonly description: string;
  /** The wording an agent reads in the tool's schema, where it differs. */
  readonly toolDescription?: string;
  /** The value in a query string. */
  readonly query: Json;
  /** The value as a tool argument; absent: as in a query string. */
  readonly argument?: Json;
  /**
   * Over HTTP, a request header of this name instead of a query parameter (a query parameter of
   * its name is unknown there); a tool argument of its `name`, as the others.
   */
  readonly header?: string;
  /** Reads the raw value (never undefined) into the request, or records what is wrong with it. */
  read(value: unknown, into: ReadRequest, errors: FieldError[]): void;
}

const textSchema = { type: 'string', minLength: 1, maxLength: MAX_TEXT_LENGTH };

/** A filter of `CatalogFilters` (a parameter of every read). */
function filter<K extends keyof CatalogFilters>(
  name: string,
  key: K,
  spec: Omit<ReadParameter, 'name' | 'scope' | 'read'>,
  reader: (value: unknown, errors: FieldError[]) => CatalogFilters[K] | undefined,
): ReadParameter {
  return {
    name,
    scope: 'every',
    ...spec,
    read(value, into, errors) {
      const parsed = reader(value, errors);
      if (parsed !== undefined) into.filters[key] = parsed;
    },
  };
}

const textFilter = (name: 'asset' | 'payTo' | 'capability', description: string, toolDescription: string) =>
  filter(name, name, { description, toolDescription, query: textSchema }, (value, errors) => values.text(name, value, errors));

/**
 * In reading order: a request with several bad values is refused naming all of them, the first
 * one's message in the detail. The search-only parameters come first, as a search reads them.
 */
export const READ_GRAMMAR: readonly ReadParameter[] = [
  {
    name: 'q',
    scope: 'search',
    required: true,
    description: 'Free text (required).',
    toolDescription: 'What the resource should do, in words.',
    query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH },
    read(value, into, errors) {
      // A missing or blank q is refused before anything else (`parseReadRequest`).
      const q = values.single('q', value, errors);
      if (q !== undefined && q.length > MAX_QUERY_LENGTH) errors.push({ path: 'q', message: `must be at most ${MAX_QUERY_LENGTH} characters` });
      else if (q !== undefined) into.q = q.trim();
    },
  },
  {
    name: 'payer',
    scope: 'search',
    header: PAYER_HEADER,
    description: 'The address that will pay (optional, an EVM address). Never changes the results: what this payer settles for soon after the search links the search to that listing, and distinct payers\' links lift it for similar searches (paid outcomes).',
    toolDescription: 'The address that will pay (optional): what it pays for after this search teaches the ranking which listings answer such searches. Never changes these results.',
    query: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
    read(value, into, errors) {
      const payer = values.single('payer', value, errors);
      if (payer === undefined) return;
      if (/^0x[0-9a-fA-F]{40}$/.test(payer.trim())) into.payer = payer.trim().toLowerCase();
      else errors.push({ path: 'payer', message: 'must be an EVM address (0x and 40 hex digits)' });
    },
  },
  {
    name: 'sort',
    scope: 'search',
    description: 'rank (relevance x price x recency x health), price (cheapest first) or recent (most recently settled first).',
    toolDescription: 'rank (default), price (cheapest first) or recent (most recently paid for).',
    query: { type: 'string', enum: ['rank', 'price', 'recent'], default: 'rank' },
    read(value, into, errors) {
      into.sort = values.oneOf('sort', value, ['rank', 'price', 'recent'] as const, errors) ?? 'rank';
    },
  },
  {
    name: 'explain',
    scope: 'search',
    description: '1 adds a debug block to each result.',
    toolDescription: 'Add the score breakdown (debug) to each result.',
    query: { type: 'string', enum: ['0', '1'], default: '0' },
    argument: { type: 'boolean' },
    read(value, into, errors) {
      into.explain = values.oneOf('explain', value, ['0', '1'] as const, errors) === '1';
    },
  },
  filter(
    'network',
    'network',
    {
      description: 'CAIP-2 network id (eip155:84532); x402 v1 names such as base-sepolia are mapped to CAIP-2.',
      toolDescription: 'CAIP-2 network id such as eip155:84532 (x402 v1 names like base-sepolia are accepted).',
      query: textSchema,
    },
    values.network,
  ),
  filter(
    'type',
    'type',
    { description: 'Listing type.', toolDescription: 'http endpoints or mcp tools.', query: { type: 'string', enum: ['http', 'mcp'] } },
    (value, errors) => values.oneOf('type', value, ['http', 'mcp'] as const, errors),
  ),
  filter(
    'maxPrice',
    'maxPrice',
    {
      description: 'Ceiling on payment.amount, in the asset\'s smallest unit (USDC: 6 decimals), compared as integers. For upto listings the amount is the ceiling.',
      toolDescription: 'Price ceiling in the asset\'s smallest unit (USDC has 6 decimals: 5000 = 0.005 USDC).',
      query: { type: 'string', pattern: '^[0-9]{1,200}$' },
      argument: { type: ['string', 'integer'], pattern: '^[0-9]{1,200}$', minimum: 0 },
    },
    values.maxPrice,
  ),
  textFilter('asset', 'Asset code or token address (case-insensitive exact match).', 'Asset code or token address.'),
  filter(
    'scheme',
    'scheme',
    { description: 'Payment scheme.', query: { type: 'string', enum: ['exact', 'upto'] } },
    (value, errors) => values.oneOf('scheme', value, ['exact', 'upto'] as const, errors),
  ),
  textFilter('payTo', 'Seller address (case-insensitive exact match).', 'Seller address.'),
  textFilter('capability', 'A tag: describe.tags of an HTTP listing or tags of an MCP listing.', 'A tag, e.g. weather.'),
  filter(
    'minUptime',
    'minUptime',
    {
      description:
        'Only listings whose active health checks of the last 7 days found a valid 402 at least this share of the time (signals.health.uptime7d >= minUptime). A listing not checked yet (every listing during its first health interval) has no uptime and does not pass a value above 0.',
      toolDescription:
        'Only listings whose health checks of the last 7 days found a valid 402 at least this share of the time (0.95 = 95%); listings never checked do not pass a value above 0.',
      query: { type: 'number', minimum: 0, maximum: 1 },
    },
    values.minUptime,
  ),
  filter(
    'payWith',
    'payWith',
    {
      description:
        'What the buyer can pay with, repeatable: network/asset pairs (CAIP-2 or x402 v1 network, token address; `USDC` names the network\'s USDC; a CAIP-19 asset namespace such as erc20: is accepted). Only listings with a payment option (payment or any accepts entry) on one of them.',
      toolDescription:
        'What you can pay with: network/asset pairs such as eip155:8453/0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 or base/USDC. Only listings with a payment option on one of them.',
      query: { type: 'array', minItems: 1, maxItems: MAX_PAY_WITH, items: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[^/]+/.+$' } },
      argument: { type: 'array', minItems: 1, maxItems: MAX_PAY_WITH, items: { type: 'string', minLength: 1, maxLength: 200 } },
    },
    parsePayWith,
  ),
  filter(
    'maxUsd',
    'maxUsdUnits',
    {
      description:
        'Price cap in US dollars (at most 6 decimals). Applies to USDC on every network the service knows; a listing passes only through a USDC option within the cap (with payWith: the same option must be on one of its pairs), so listings payable only in unknown assets are left out. An upto option compares the listing\'s median settled amount (signals.medianSettledAmount7d) when known, its ceiling otherwise.',
      toolDescription:
        'Price cap in US dollars (0.005), applied to USDC on every network the service knows; listings payable only in other assets are left out. upto listings compare their median settled amount when known.',
      query: { type: 'string', pattern: '^\\$?[0-9]{1,12}(\\.[0-9]{1,6})?$' },
      argument: { type: ['string', 'number'], pattern: '^\\$?[0-9]{1,12}(\\.[0-9]{1,6})?$', minimum: 0 },
    },
    (value, errors) => parseMaxUsd(values.single('maxUsd', value, errors), errors),
  ),
  {
    name: 'limit',
    scope: 'every',
    description: 'Page size.',
    toolDescription: 'Page size (default 20).',
    query: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    read(value, into, errors) {
      into.limit = values.limit(value, errors);
    },
  },
  {
    name: 'cursor',
    scope: 'every',
    description: 'The previous page\'s nextCursor; bound to the same query, filters and sort.',
    toolDescription: 'nextCursor of the previous page, with the same other arguments.',
    query: { type: 'string', minLength: 1 },
    read(value, into, errors) {
      // Kept verbatim: the cursor codec checks it against the planned read (search/cursor.ts).
      const cursor = values.single('cursor', value, errors);
      if (cursor !== undefined) into.cursor = cursor;
    },
  },
];

const byName = new Map(READ_GRAMMAR.map((p) => [p.name, p]));

/** The parameters of an endpoint's reads, in reading order. */
export function readParameters(endpoint: ReadEndpoint): readonly ReadParameter[] {
  return endpoint === 'resources' ? EVERY : READ_GRAMMAR;
}

/** The named parameters (other surfaces that take some of them: the merchant view, the Bazaar). */
export function readParametersNamed(names: readonly string[]): ReadParameter[] {
  return names.map((name) => {
    const parameter = byName.get(name);
    if (!parameter) throw new Error(`no read parameter ${name}`);
    return parameter;
  });
}

const EVERY = READ_GRAMMAR.filter((p) => p.scope === 'every');
const SEARCH_ONLY = READ_GRAMMAR.filter((p) => p.scope === 'search');
/** The unknown_filter answer lists the filters first, then what a search adds. */
const ALLOWED: Record<ReadEndpoint, ReadonlySet<string>> = {
  resources: new Set(EVERY.map((p) => p.name)),
  search: new Set([...EVERY, ...SEARCH_ONLY].map((p) => p.name)),
  mcpTools: new Set([...EVERY, ...SEARCH_ONLY].map((p) => p.name)),
};
/** Names a query string may not carry when the read comes with its headers (HTTP): those are headers there. */
const HEADER_PARAMETERS = new Set(READ_GRAMMAR.filter((p) => p.header !== undefined).map((p) => p.name));

export interface ReadSource {
  /** The HTTP request's headers: header parameters (`X-Payer`) are read from them, not from `given`. */
  headers?: (name: string) => string | undefined;
}

/** A tool argument's query-string form (a query string's own values pass unchanged). */
const asText = (value: unknown): unknown => (typeof value === 'number' ? String(value) : typeof value === 'boolean' ? (value ? '1' : '0') : value);

function invalid(errors: FieldError[]): InvalidInput {
  const names = errors.map((e) => e.path).join(', ');
  return new InvalidInput('invalid_filter_value', `Invalid value for ${names}: ${errors[0]!.message}`, errors);
}

/**
 * Validates a read's parameters: a query string (`req.query` with the `simple` parser) or an MCP
 * tool's arguments (already checked against the tool's schema, search/readGrammar.ts generated).
 * Order of checks: unknown parameters, then a missing `q` (search), then every bad value at once,
 * so one answer lists everything to fix.
 */
export function parseReadRequest(endpoint: ReadEndpoint, given: Record<string, unknown>, source: ReadSource = {}): ReadRequest {
  const allowed = ALLOWED[endpoint];
  const unknown = Object.keys(given).filter((name) => !allowed.has(name) || (source.headers !== undefined && HEADER_PARAMETERS.has(name)));
  if (unknown.length > 0) {
    throw new InvalidInput(
      'unknown_filter',
      `Unknown filter: ${unknown.join(', ')}. Allowed: ${[...allowed].join(', ')}.`,
      unknown.map((path) => ({ path, message: 'is not a known filter' })),
    );
  }
  const kind = endpoint === 'resources' ? 'resources' : 'search';
  if (kind === 'search') {
    const q = given.q;
    if (q === undefined || (typeof q === 'string' && q.trim() === '')) {
      throw new InvalidInput('missing_query', 'The free-text query `q` is required and must not be empty.', [{ path: 'q', message: 'is required' }]);
    }
  }
  const errors: FieldError[] = [];
  const request: ReadRequest = { kind, explain: false, limit: DEFAULT_LIMIT, filters: {} };
  if (kind === 'search') request.sort = 'rank';
  for (const parameter of readParameters(endpoint)) {
    const value = parameter.header !== undefined && source.headers ? source.headers(parameter.header) : given[parameter.name];
    if (value !== undefined) parameter.read(asText(value), request, errors);
  }
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
