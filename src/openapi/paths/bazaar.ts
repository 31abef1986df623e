/**
 * The x402 Bazaar surface under /x402 (docs/bazaar.md): Bazaar-shaped discovery over
 * the same search, and the facilitator's three operations again under the same base.
 */
import { BAZAAR_MAX_OFFSET } from '../../bazaar/bazaarRequest.js';
import { MAX_QUERY_LENGTH } from '../../search/readRequest.js';
import { readParametersNamed } from '../../search/readGrammar.js';
import { json, operation, queryParameter, ref, type OpenApiObject, type ProblemCodes } from '../builders.js';
import { facilitatorPathsAt } from './facilitator.js';
import { parameterOf } from './catalog.js';

/** The catalog's own filters the Bazaar takes, as the read grammar declares them (search/readGrammar.ts). */
const filters: OpenApiObject[] = [
  ...readParametersNamed(['type', 'payTo', 'scheme', 'network', 'payWith', 'maxUsd']).map(parameterOf),
  queryParameter('extensions', 'Extension key items must carry: every item carries bazaar; any other key matches none.', { type: 'string', minLength: 1 }),
  queryParameter('limit', 'Advisory page size: above 100 it is lowered to 100 (pagination.limit says so).', { type: 'integer', minimum: 1, maximum: 9_999_999, default: 20 }),
];

const READ_PROBLEMS: ProblemCodes = { 400: ['unknown_filter', 'invalid_filter_value'], 429: ['rate_limited'], 503: ['search_unavailable'] };

export const bazaarPaths: Record<string, OpenApiObject> = {
  '/x402/discovery/resources': {
    get: operation('bazaarListResources', {
      tags: ['x402'],
      summary: 'Bazaar list: filters, limit, offset; newest first, with the exact total',
      parameters: [...filters, queryParameter('offset', 'Matches to skip.', { type: 'integer', minimum: 0, maximum: BAZAAR_MAX_OFFSET, default: 0 })],
      responses: { 200: json('Items and pagination (x402 Bazaar wire shape).', ref('BazaarListResponse')) },
      problems: READ_PROBLEMS,
      examples: [
        { summary: 'MCP tools, second page of 5', status: 200, query: { type: 'mcp', limit: '5', offset: '5' } },
        { summary: 'Offset beyond the window', status: 400, query: { offset: '9001' } },
        { summary: 'A native parameter the Bazaar list does not take', status: 400, query: { q: 'weather' } },
      ],
    }),
  },
  '/x402/discovery/search': {
    get: operation('bazaarSearchResources', {
      tags: ['x402'],
      summary: 'Bazaar search: ranked exactly as /discovery/search',
      parameters: [
        queryParameter('query', 'Natural-language query (required).', { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH }, true),
        ...filters,
        queryParameter('cursor', 'pagination.cursor of the previous page.', { type: 'string', minLength: 1 }),
      ],
      responses: { 200: json('Resources, partialResults and pagination (x402 Bazaar wire shape).', ref('BazaarSearchResponse')) },
      problems: { ...READ_PROBLEMS, 400: ['unknown_filter', 'missing_query', 'invalid_filter_value', 'invalid_cursor'] },
      examples: [
        { summary: 'Weather, 2 per page', status: 200, query: { query: 'weather', limit: '2' } },
        { summary: 'Missing query', status: 400, query: { type: 'http' } },
      ],
    }),
  },
  ...facilitatorPathsAt('/x402', 'x402'),
};
