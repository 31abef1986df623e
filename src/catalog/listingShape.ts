/**
 * JSON Schemas of what clients receive (README "Catalog reads: the choices", as `toListing` builds it): the listing
 * shapes and a page of them. One definition for every surface that describes them: the OpenAPI
 * document and the MCP discovery tools' output schemas. Plain JSON Schema without `$ref`, so a
 * consumer can inline it anywhere (MCP clients validate structured output with it).
 */
import { LISTING_ID_SOURCE } from '../core/listingId.js';
import { describeSchema, paymentSchema, signalsSchema, TOOL_NAME } from './listingSchema.js';


const debugSchema = {
  type: 'object',
  description: 'Only with explain=1: score = relevance x priceBoost x recencyBoost x healthBoost (SPEC 2.6; healthBoost is 1 for a healthy or never-checked listing).',
  required: ['score', 'relevance', 'priceBoost', 'recencyBoost', 'healthBoost'],
  additionalProperties: false,
  properties: {
    score: { type: 'number' },
    relevance: { type: 'number' },
    priceBoost: { type: 'number' },
    recencyBoost: { type: 'number' },
    healthBoost: { type: 'number', minimum: 0, maximum: 1 },
  },
} as const;

/** Signals are always present in responses (zeros when nothing was seen). */
const signalsResponseSchema = { ...signalsSchema, required: ['settleCount7d', 'rejectionRate7d'] } as const;

export const httpListingResponseSchema = {
  type: 'object',
  title: 'HttpListing',
  required: ['id', 'type', 'resource', 'payment', 'describe', 'signals'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: LISTING_ID_SOURCE },
    type: { const: 'http' },
    resource: { type: 'string', description: 'The endpoint URL; dynamic paths as {name} templates.' },
    payment: paymentSchema,
    describe: describeSchema,
    signals: signalsResponseSchema,
    debug: debugSchema,
  },
} as const;

export const mcpListingResponseSchema = {
  type: 'object',
  title: 'McpListing',
  required: ['id', 'type', 'resource', 'name', 'description', 'inputSchema', 'payment', 'signals'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: LISTING_ID_SOURCE },
    type: { const: 'mcp' },
    resource: { type: 'string', description: 'mcp://<host>/<tool_name>' },
    name: { type: 'string', pattern: TOOL_NAME },
    description: { type: 'string' },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    payment: paymentSchema,
    tags: describeSchema.properties.tags,
    signals: signalsResponseSchema,
    debug: debugSchema,
  },
} as const;

/** One listing: `type` tells which shape. */
export const listingResponseSchema = {
  type: 'object',
  title: 'Listing',
  oneOf: [httpListingResponseSchema, mcpListingResponseSchema],
} as const;

/** A page of a catalog read (docs/catalog-reads.md): `nextCursor` only when another page exists. */
export const listingPageSchema = {
  type: 'object',
  title: 'ListingPage',
  required: ['results'],
  additionalProperties: false,
  properties: {
    results: { type: 'array', items: listingResponseSchema },
    nextCursor: { type: 'string', minLength: 1, description: 'Pass as `cursor` for the next page; absent on the last page.' },
  },
} as const;
