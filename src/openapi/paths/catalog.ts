/** Catalog reads (docs/catalog-reads.md): /discovery/resources, /discovery/search, /mcp/tools, one listing. */
import { httpListingId, mcpListingId } from '../../catalog/identity.js';
import { LISTING_ID_SOURCE } from '../../core/listingId.js';
import { MAX_TEXT_LENGTH } from '../../search/readRequest.js';
import { readParameters, readParametersNamed, type ReadParameter } from '../../search/readGrammar.js';
import { json, operation, pathParameter, queryParameter, ref, type OpenApiObject, type ProblemCodes } from '../builders.js';

/** Demo catalog listings (demo/catalog.json): the examples read real data. */
export const DEMO_TRANSLATION_ID = httpListingId('https://translate.lingobridge.com/v1/translate');
/** payTo of the demo translation API (demo/catalog.json). */
export const DEMO_TRANSLATION_PAY_TO = '0x4E2f8a1B3c5D7e9F0a2B4c6D8e0F1a3B5c7D9e1F';
export const DEMO_FORECAST_TOOL_ID = mcpListingId('mcp://mcp.skycast.dev', 'get_weather_forecast');

/** A read parameter of the grammar (search/readGrammar.ts) as an OpenAPI query parameter. */
export const parameterOf = (p: ReadParameter): OpenApiObject =>
  p.header !== undefined ? { name: p.header, in: 'header', required: false, description: p.description, schema: p.query } : queryParameter(p.name, p.description, p.query, p.required === true);

const filters: OpenApiObject[] = readParameters('resources').map(parameterOf);
const searchParameters: OpenApiObject[] = readParameters('search').map(parameterOf);

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
        ...readParametersNamed(['limit']).map(parameterOf),
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
