/** Catalog reads (docs/catalog-reads.md): /discovery/resources, /discovery/search, /mcp/tools, one listing. */
import { httpListingId, mcpListingId } from '../../catalog/identity.js';
import { LISTING_ID_SOURCE } from '../../core/listingId.js';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERY_LENGTH, MAX_TEXT_LENGTH } from '../../search/readRequest.js';
import { MAX_PAY_WITH } from '../../search/payableParameters.js';
import { json, operation, pathParameter, queryParameter, ref, type OpenApiObject, type ProblemCodes } from '../builders.js';

/** Demo catalog listings (demo/catalog.json): the examples read real data. */
export const DEMO_TRANSLATION_ID = httpListingId('https://translate.lingobridge.com/v1/translate');
/** payTo of the demo translation API (demo/catalog.json). */
export const DEMO_TRANSLATION_PAY_TO = '0x4E2f8a1B3c5D7e9F0a2B4c6D8e0F1a3B5c7D9e1F';
export const DEMO_FORECAST_TOOL_ID = mcpListingId('mcp://mcp.skycast.dev', 'get_weather_forecast');

const text = (name: string, description: string) =>
  queryParameter(name, description, { type: 'string', minLength: 1, maxLength: MAX_TEXT_LENGTH });

/** "Can I pay this?" (docs/catalog-reads.md "API"): also taken by the x402 Bazaar surface. */
export const payableParameters: OpenApiObject[] = [
  queryParameter(
    'payWith',
    'What the buyer can pay with, repeatable: network/asset pairs (CAIP-2 or x402 v1 network, token address; `USDC` names the network\'s USDC; a CAIP-19 asset namespace such as erc20: is accepted). Only listings with a payment option (payment or any accepts entry) on one of them.',
    { type: 'array', minItems: 1, maxItems: MAX_PAY_WITH, items: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[^/]+/.+$' } },
  ),
  queryParameter(
    'maxUsd',
    'Price cap in US dollars (at most 6 decimals). Applies to USDC on every network the service knows; a listing passes only through a USDC option within the cap (with payWith: the same option must be on one of its pairs), so listings payable only in unknown assets are left out. An upto option compares the listing\'s median settled amount (signals.medianSettledAmount7d) when known, its ceiling otherwise.',
    { type: 'string', pattern: '^\\$?[0-9]{1,12}(\\.[0-9]{1,6})?$' },
  ),
];

const filters: OpenApiObject[] = [
  text('network', 'CAIP-2 network id (eip155:84532); x402 v1 names such as base-sepolia are mapped to CAIP-2.'),
  queryParameter('type', 'Listing type.', { type: 'string', enum: ['http', 'mcp'] }),
  queryParameter('maxPrice', 'Ceiling on payment.amount, in the asset\'s smallest unit (USDC: 6 decimals), compared as integers. For upto listings the amount is the ceiling.', {
    type: 'string',
    pattern: '^[0-9]{1,200}$',
  }),
  text('asset', 'Asset code or token address (case-insensitive exact match).'),
  queryParameter('scheme', 'Payment scheme.', { type: 'string', enum: ['exact', 'upto'] }),
  text('payTo', 'Seller address (case-insensitive exact match).'),
  text('capability', 'A tag: describe.tags of an HTTP listing or tags of an MCP listing.'),
  queryParameter(
    'minUptime',
    'Only listings whose active health checks of the last 7 days found a valid 402 at least this share of the time (signals.health.uptime7d >= minUptime). A listing not checked yet (every listing during its first health interval) has no uptime and does not pass a value above 0.',
    { type: 'number', minimum: 0, maximum: 1 },
  ),
  ...payableParameters,
  queryParameter('limit', 'Page size.', { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }),
  queryParameter('cursor', 'The previous page\'s nextCursor; bound to the same query, filters and sort.', { type: 'string', minLength: 1 }),
];

const searchParameters: OpenApiObject[] = [
  queryParameter('q', 'Free text (required).', { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH }, true),
  queryParameter('sort', 'rank (relevance x price x recency x health), price (cheapest first) or recent (most recently settled first).', {
    type: 'string',
    enum: ['rank', 'price', 'recent'],
    default: 'rank',
  }),
  queryParameter('explain', '1 adds a debug block to each result.', { type: 'string', enum: ['0', '1'], default: '0' }),
  ...filters,
];

const READ_PROBLEMS: ProblemCodes = { 400: ['unknown_filter', 'invalid_filter_value', 'invalid_cursor'], 429: ['rate_limited'], 503: ['search_unavailable'] };
const SEARCH_PROBLEMS: ProblemCodes = { ...READ_PROBLEMS, 400: ['unknown_filter', 'missing_query', 'invalid_filter_value', 'invalid_cursor'] };
const page = json('A page of listings; nextCursor only when another page exists.', ref('ListingPage'));

export const catalogPaths: Record<string, OpenApiObject> = {
  '/discovery/resources': {
    get: operation('listResources', {
      tags: ['catalog'],
      summary: 'Structured filtering, newest first',
      parameters: filters,
      responses: { 200: page },
      problems: READ_PROBLEMS,
      examples: [
        { summary: 'MCP tools tagged weather up to 0.005 USDC', status: 200, query: { type: 'mcp', capability: 'weather', maxPrice: '5000', limit: '2' } },
        { summary: 'A legacy network name is accepted', status: 200, query: { network: 'base-sepolia', limit: '1' } },
        { summary: 'Payable in USDC on Base Sepolia, at most 0.002 USD', status: 200, query: { payWith: 'base-sepolia/USDC', maxUsd: '0.002', limit: '2' } },
        { summary: 'maxUsd with more than 6 decimals', status: 400, query: { maxUsd: '0.0000001' } },
        { summary: 'Unknown parameter', status: 400, query: { offset: '20' } },
        { summary: 'Limit out of bounds', status: 400, query: { limit: '101' } },
        { summary: 'minUptime out of bounds', status: 400, query: { minUptime: '1.5' } },
        { summary: 'Tampered cursor', status: 400, query: { cursor: 'abc.def' } },
      ],
    }),
  },
  '/discovery/search': {
    get: operation('searchResources', {
      tags: ['catalog'],
      summary: 'Ranked free-text search',
      parameters: searchParameters,
      responses: { 200: page },
      problems: SEARCH_PROBLEMS,
      examples: [
        { summary: 'Search with explain', status: 200, query: { q: 'translate text', limit: '2', explain: '1' } },
        { summary: 'Cheapest first', status: 200, query: { q: 'weather', sort: 'price', limit: '3' } },
        { summary: 'Missing q', status: 400, query: { sort: 'rank' } },
        { summary: 'Bad sort', status: 400, query: { q: 'weather', sort: 'name' } },
      ],
    }),
  },
  '/mcp/tools': {
    get: operation('searchMcpTools', {
      tags: ['catalog'],
      summary: 'Search restricted to MCP tools (= /discovery/search with type=mcp)',
      parameters: searchParameters,
      responses: { 200: page },
      problems: SEARCH_PROBLEMS,
      examples: [
        { summary: 'Weather tools', status: 200, query: { q: 'weather forecast', limit: '2' } },
        { summary: 'type other than mcp', status: 400, query: { q: 'weather', type: 'http' } },
      ],
    }),
  },
  '/discovery/merchant': {
    get: operation('getMerchant', {
      tags: ['catalog'],
      summary: 'One merchant: every live listing paid to a payTo, newest first, with their aggregate signals',
      parameters: [
        queryParameter('payTo', 'The merchant\'s receiving address (payment.payTo), case-insensitive.', { type: 'string', minLength: 1, maxLength: MAX_TEXT_LENGTH }, true),
        queryParameter('limit', 'Page size.', { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }),
        queryParameter('cursor', 'The previous page\'s nextCursor, with the same payTo.', { type: 'string', minLength: 1 }),
      ],
      responses: { 200: json('The listings and their summary.', ref('MerchantView')) },
      problems: { 400: ['unknown_filter', 'invalid_filter_value', 'invalid_cursor'], 404: ['not_found'], 429: ['rate_limited'], 503: ['search_unavailable'] },
      examples: [
        { summary: 'The demo translation seller', status: 200, query: { payTo: DEMO_TRANSLATION_PAY_TO, limit: '2' } },
        { summary: 'No listing pays this address', status: 404, query: { payTo: '0x0000000000000000000000000000000000000001' } },
        { summary: 'payTo missing', status: 400, query: { limit: '2' } },
      ],
    }),
  },
  '/discovery/resources/{id}': {
    get: operation('getResource', {
      tags: ['catalog'],
      summary: 'One listing by id (read in real time)',
      parameters: [pathParameter('id', 'Listing id (or the id an announce answered).', { type: 'string', pattern: LISTING_ID_SOURCE })],
      responses: { 200: json('The listing.', ref('Listing')) },
      problems: { 400: ['invalid_path'], 404: ['not_found'], 429: ['rate_limited'], 503: ['search_unavailable'] },
      examples: [
        { summary: 'An HTTP listing', status: 200, params: { id: DEMO_TRANSLATION_ID } },
        { summary: 'An MCP tool', status: 200, params: { id: DEMO_FORECAST_TOOL_ID } },
        { summary: 'Unknown id', status: 404, params: { id: 'lst_000000000000000000000000' } },
      ],
    }),
  },
};
