/** What sellers call: announce and its status (docs/announce.md), publish and unpublish (docs/sdk.md). */
import { mcpListingId } from '../../catalog/identity.js';
import { LISTING_ID_SOURCE } from '../../core/listingId.js';
import { BODY_PROBLEMS, json, jsonBody, mergeProblems, operation, pathParameter, queryParameter, ref, type OpenApiObject } from '../builders.js';

/** The tool the publish examples publish and then unpublish (the test issues a token for its host). */
export const EXAMPLE_TOOL_HOST = 'tools.example.com';
const EXAMPLE_TOOL_ID = mcpListingId(`mcp://${EXAMPLE_TOOL_HOST}`, 'get_forecast');
const EXAMPLE_TOOL = {
  type: 'mcp',
  resource: `mcp://${EXAMPLE_TOOL_HOST}/get_forecast`,
  name: 'get_forecast',
  description: 'Daily weather forecast for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  payment: { scheme: 'exact', network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '1000', payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C' },
  tags: ['weather'],
};
const BEARER = { Authorization: 'Bearer {sellerToken}' };
const EXAMPLE_ANNOUNCED = 'https://weather.example.com/v1/forecast?city=Berlin';

const withBody = (own: Record<number, readonly string[]>) => mergeProblems(BODY_PROBLEMS, own);

/** A seller's opt-out: the listing by id, or by resource and method; a seller token or a payTo signature proves it is the seller's. */
const optOutRequest = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: LISTING_ID_SOURCE, description: 'The listing (instead of resource and method).' },
    resource: { type: 'string', minLength: 1, maxLength: 2048 },
    method: { type: 'string', description: 'With resource: the HTTP method (default GET).' },
    reason: { type: 'string', maxLength: 200, description: 'The seller\'s words, kept with the opt-out.' },
    proof: {
      type: 'object',
      description:
        'Instead of a seller token: an EIP-191 (personal_sign) signature by a payTo of the listing of `x402 discovery opt-out\\nlisting: <id>\\nsigned at: <signedAt>` (`lift` instead of `opt-out` to lift it), signedAt within 10 minutes of now.',
      required: ['payTo', 'signature', 'signedAt'],
      additionalProperties: false,
      properties: { payTo: { type: 'string' }, signature: { type: 'string' }, signedAt: { type: 'string', format: 'date-time' } },
    },
  },
} as const;
const optOutState = {
  type: 'object',
  required: ['id', 'resource', 'method', 'optedOut'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: LISTING_ID_SOURCE },
    resource: { type: 'string' },
    method: { type: 'string' },
    optedOut: { type: 'boolean' },
    reason: { type: 'string' },
    at: { type: 'string', format: 'date-time' },
  },
} as const;
const EXAMPLE_OPTED_OUT = `https://${EXAMPLE_TOOL_HOST}/v1/quote`;

export const sellerPaths: Record<string, OpenApiObject> = {
  '/discovery/announce': {
    post: operation('announceResource', {
      tags: ['sellers'],
      summary: 'Announce a paid HTTP resource (or an origin, whose manifests name them); the service probes each and lists it if it answers 402',
      requestBody: jsonBody(
        'The resource and, optionally, the 402 it serves; or `origin` alone: its /.well-known/x402 and /openapi.json are read and every resource they name is queued (docs/federation.md).',
        { oneOf: [ref('AnnounceRequest'), ref('OriginAnnounceRequest')] },
      ),
      responses: {
        202: json('Queued (or answered by a recent probe of the same id); for an origin, each manifest and resource with its outcome.', { oneOf: [ref('AnnounceAccepted'), ref('OriginAnnounceAccepted')] }, {
          Location: { description: 'The status URL.', schema: { type: 'string' } },
        }),
      },
      problems: withBody({ 400: ['invalid_announce'], 429: ['rate_limited'], 503: ['announce_unavailable'] }),
      examples: [
        { summary: 'Announce a URL', status: 202, body: { resource: EXAMPLE_ANNOUNCED } },
        { summary: 'Not an http(s) URL', status: 400, body: { resource: 'ftp://weather.example.com/forecast' } },
        { summary: 'Unknown field', status: 400, body: { resource: EXAMPLE_ANNOUNCED, price: '$0.01' } },
        { summary: 'An origin that is not http(s)', status: 400, body: { origin: 'ftp://weather.example.com' } },
      ],
    }),
  },
  '/discovery/announce/status': {
    get: operation('announceStatus', {
      tags: ['sellers'],
      summary: 'Is an announced resource listed, pending or rejected (and why)?',
      parameters: [
        queryParameter('id', 'The id announce answered, or the listing id.', { type: 'string', minLength: 1, maxLength: 2048 }),
        queryParameter('resource', 'The announced URL (instead of id).', { type: 'string', minLength: 1, maxLength: 2048 }),
        queryParameter('method', 'With resource: the HTTP method (default GET).', { type: 'string', minLength: 1, maxLength: 2048 }),
        queryParameter('origin', 'An announced origin (instead of id): its manifests and each resource with its probe outcome.', { type: 'string', minLength: 1, maxLength: 2048 }),
      ],
      responses: { 200: json('The announcement\'s state.', { oneOf: [ref('AnnounceStatus'), ref('OriginStatus')] }) },
      problems: { 400: ['unknown_filter', 'invalid_filter_value', 'invalid_announce'], 404: ['not_found'], 503: ['announce_unavailable'] },
      examples: [
        { summary: 'By URL, after announcing it', status: 200, query: { resource: EXAMPLE_ANNOUNCED } },
        { summary: 'Nothing announced under this id', status: 404, query: { id: 'lst_000000000000000000000000' } },
        { summary: 'No origin announce of this origin', status: 404, query: { origin: 'https://never.example' } },
        { summary: 'Neither id nor resource', status: 400, query: {} },
        { summary: 'Unknown parameter', status: 400, query: { url: EXAMPLE_ANNOUNCED } },
      ],
    }),
  },
  '/discovery/publish': {
    post: operation('publishTool', {
      tags: ['sellers'],
      summary: 'Publish (create or replace) an MCP tool listing',
      security: [{ sellerToken: [] }],
      requestBody: jsonBody('The tool (SPEC 4.3); unknown fields are refused.', ref('PublishRequest')),
      responses: {
        201: json('Created.', ref('McpListing'), { Location: { description: 'The listing URL.', schema: { type: 'string' } } }),
        200: json('Replaced an existing listing of this token.', ref('McpListing')),
      },
      problems: withBody({ 400: ['invalid_listing'], 401: ['unauthorized'], 403: ['forbidden_resource'], 429: ['rate_limited'], 503: ['service_unavailable'] }),
      examples: [
        { summary: 'Publish a tool', status: 201, headers: BEARER, body: EXAMPLE_TOOL },
        { summary: 'Publish it again (replace)', status: 200, headers: BEARER, body: EXAMPLE_TOOL },
        { summary: 'No token', status: 401, body: EXAMPLE_TOOL },
        { summary: 'A host the token is not bound to', status: 403, headers: BEARER, body: { ...EXAMPLE_TOOL, resource: 'mcp://other.example.net/get_forecast' } },
        { summary: 'Invalid fields', status: 400, headers: BEARER, body: { ...EXAMPLE_TOOL, name: 'no spaces allowed', payment: { scheme: 'exact' } } },
      ],
    }),
  },
  '/discovery/optout': {
    post: operation('optOut', {
      tags: ['sellers'],
      summary: 'Take your own HTTP listing out of the catalog and keep it out (against re-probes, payments, manifests and federation) until you lift it',
      description:
        'Proof that the listing is yours: a seller token bound to the resource host (Authorization: Bearer), or `proof` signed by a payTo of the listing. The listing is removed (`opted_out` in the change feed); announcing, crawling or paying for it lists nothing until the opt-out is lifted.',
      requestBody: jsonBody('The listing and the proof.', optOutRequest),
      responses: { 200: json('Opted out.', optOutState) },
      problems: withBody({ 400: ['invalid_optout'], 401: ['unauthorized'], 403: ['forbidden_resource'], 429: ['rate_limited'], 503: ['service_unavailable'] }),
      examples: [
        { summary: 'Opt a resource on a host the token is bound to out', status: 200, headers: BEARER, body: { resource: EXAMPLE_OPTED_OUT, reason: 'We list our API ourselves' } },
        { summary: 'No proof', status: 401, body: { resource: EXAMPLE_OPTED_OUT } },
        { summary: 'A host the token is not bound to', status: 403, headers: BEARER, body: { resource: 'https://other.example.net/v1/quote' } },
        { summary: 'Unknown field', status: 400, headers: BEARER, body: { resource: EXAMPLE_OPTED_OUT, until: 'forever' } },
      ],
    }),
    delete: operation('liftOptOut', {
      tags: ['sellers'],
      summary: 'Lift your opt-out: the resource may be listed again by its next probe, announce or publish',
      requestBody: jsonBody('The listing and the proof (as for the opt-out; a signature signs `lift`).', optOutRequest),
      responses: { 200: json('Lifted.', optOutState) },
      problems: withBody({ 400: ['invalid_optout'], 401: ['unauthorized'], 403: ['forbidden_resource'], 429: ['rate_limited'], 503: ['service_unavailable'] }),
      examples: [
        { summary: 'Lift the opt-out above', status: 200, headers: BEARER, body: { resource: EXAMPLE_OPTED_OUT } },
        { summary: 'No proof', status: 401, body: { resource: EXAMPLE_OPTED_OUT } },
      ],
    }),
  },
  '/discovery/publish/{id}': {
    delete: operation('unpublishTool', {
      tags: ['sellers'],
      summary: 'Remove a listing published with this token',
      security: [{ sellerToken: [] }],
      parameters: [pathParameter('id', 'Listing id.', { type: 'string', pattern: LISTING_ID_SOURCE })],
      responses: { 204: { description: 'Removed; it leaves search results within about a second.' } },
      problems: { 400: ['invalid_path'], 401: ['unauthorized'], 403: ['forbidden_resource'], 404: ['not_found'], 429: ['rate_limited'], 503: ['service_unavailable'] },
      examples: [
        { summary: 'Unpublish the tool published above', status: 204, headers: BEARER, params: { id: EXAMPLE_TOOL_ID } },
        { summary: 'Unknown listing', status: 404, headers: BEARER, params: { id: 'lst_000000000000000000000000' } },
      ],
    }),
  },
};
