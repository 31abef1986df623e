/**
 * The service's own surface: health, metrics, this document, MCP discovery (docs/mcp.md) and the
 * web catalog's page and assets (docs/web.md).
 */
import { json, operation, pathParameter, type OpenApiObject } from '../builders.js';
import { DEMO_TRANSLATION_ID, DEMO_TRANSLATION_PAY_TO } from './catalog.js';

const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const asset = (type: string) => ({ description: 'The web client (built by `npm run build:web`).', content: { [type]: { schema: { type: 'string' } } } });

/** The assets exist once `npm run build:web` (part of `npm run build`, dev and test) has run. */
const NOT_BUILT = { 404: ['not_found'] };
const WEB_PAGE = 'The web catalog: one page that reads the public JSON API (docs/web.md).';
const MCP_ACCEPT = { Accept: 'application/json, text/event-stream' };

const jsonRpc = {
  type: 'object',
  required: ['jsonrpc'],
  properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, result: { type: 'object' }, error: { type: 'object' } },
};

export const servicePaths: Record<string, OpenApiObject> = {
  '/healthz': {
    get: operation('healthz', {
      tags: ['operations'],
      summary: 'Liveness: the process serves requests',
      responses: { 200: json('Alive.', { $ref: '#/components/schemas/Health' }) },
      examples: [{ summary: 'Alive', status: 200 }],
    }),
  },
  '/readyz': {
    get: operation('readyz', {
      tags: ['operations'],
      summary: 'Readiness: Elasticsearch and Redis answer',
      responses: { 200: json('Ready.', { $ref: '#/components/schemas/Ready' }) },
      problems: { 503: ['not_ready'] },
      examples: [{ summary: 'Ready', status: 200 }],
    }),
  },
  '/metrics': {
    get: operation('metrics', {
      tags: ['operations'],
      summary: 'Prometheus metrics (requests, catalog queue, probes, sponsor balance)',
      responses: { 200: { description: 'Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } },
      examples: [{ summary: 'Metrics', status: 200 }],
    }),
  },
  '/openapi.json': {
    get: operation('openapi', {
      tags: ['operations'],
      summary: 'This document',
      responses: { 200: json('OpenAPI 3.1.', { type: 'object', required: ['openapi', 'info', 'paths'] }) },
      examples: [{ summary: 'The document', status: 200 }],
    }),
  },
  '/mcp': {
    post: operation('mcp', {
      tags: ['mcp'],
      summary: 'MCP discovery (Streamable HTTP, stateless): tools search_resources, list_resources, get_resource',
      description: 'JSON-RPC 2.0 over the MCP Streamable HTTP transport; send `Accept: application/json, text/event-stream`. See docs/mcp.md.',
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['jsonrpc', 'method'] } } } },
      responses: {
        200: json('The JSON-RPC response (tool errors are results with isError: true).', jsonRpc),
        202: { description: 'A notification was accepted (no response body).' },
        400: json('Not a JSON-RPC message (JSON-RPC error).', jsonRpc),
        406: json('The Accept header does not allow JSON and SSE (JSON-RPC error).', jsonRpc),
        415: json('Not application/json (JSON-RPC error).', jsonRpc),
      },
      problems: { 400: ['invalid_json'], 413: ['payload_too_large'], 429: ['rate_limited'] },
      examples: [
        {
          summary: 'Search for tools',
          status: 200,
          headers: MCP_ACCEPT,
          body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_resources', arguments: { q: 'weather', limit: 2 } } },
        },
        { summary: 'List the tools', status: 200, headers: MCP_ACCEPT, body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } },
        { summary: 'Without the Accept header the transport needs', status: 406, body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } },
      ],
    }),
    get: operation('mcpStream', {
      tags: ['mcp'],
      summary: 'Not offered: the endpoint is stateless (no server-initiated stream)',
      responses: {},
      problems: { 405: ['method_not_allowed'] },
      examples: [{ summary: 'GET is refused', status: 405 }],
    }),
    delete: operation('mcpSession', {
      tags: ['mcp'],
      summary: 'Not offered: there are no sessions to end',
      responses: {},
      problems: { 405: ['method_not_allowed'] },
      examples: [{ summary: 'DELETE is refused', status: 405 }],
    }),
  },
  '/': {
    get: operation('webSearch', { tags: ['web'], summary: 'Web catalog: search', responses: { 200: html(WEB_PAGE) }, examples: [{ summary: 'The page', status: 200 }] }),
  },
  '/listings/{id}': {
    get: operation('webListing', {
      tags: ['web'],
      summary: 'Web catalog: one listing (the page loads /discovery/resources/{id})',
      parameters: [pathParameter('id', 'Listing id.', { type: 'string' })],
      responses: { 200: html(WEB_PAGE) },
      examples: [{ summary: 'A listing page', status: 200, params: { id: DEMO_TRANSLATION_ID } }],
    }),
  },
  '/merchants/{payTo}': {
    get: operation('webMerchant', {
      tags: ['web'],
      summary: 'Web catalog: one merchant (the page loads /discovery/merchant)',
      parameters: [pathParameter('payTo', 'The merchant\'s receiving address.', { type: 'string' })],
      responses: { 200: html(WEB_PAGE) },
      examples: [{ summary: 'A merchant page', status: 200, params: { payTo: DEMO_TRANSLATION_PAY_TO } }],
    }),
  },
  '/sellers': {
    get: operation('webSellers', { tags: ['web'], summary: 'Web catalog: seller status and announce', responses: { 200: html(WEB_PAGE) }, examples: [{ summary: 'The page', status: 200 }] }),
  },
  '/assets/app.js': {
    get: operation('webScript', { tags: ['web'], summary: 'Web client script', responses: { 200: asset('text/javascript') }, problems: NOT_BUILT, examples: [{ summary: 'Script', status: 200 }] }),
  },
  '/assets/app.css': {
    get: operation('webStyles', { tags: ['web'], summary: 'Web client styles', responses: { 200: asset('text/css') }, problems: NOT_BUILT, examples: [{ summary: 'Styles', status: 200 }] }),
  },
};
