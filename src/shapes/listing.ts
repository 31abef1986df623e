/**
 * The listing as clients see it (docs/catalog-reads.md "API", Listing shape), as `toListing`
 * builds it from the stored document (store/listingDocument.ts): one JSON Schema per shape and the
 * type derived from it. The schemas describe the listing on every surface that documents it (the
 * OpenAPI document, the MCP discovery tools' output schemas). Plain JSON Schema without `$ref`, so a
 * consumer can inline it anywhere (MCP clients validate structured output with it).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { LISTING_ID_SOURCE } from '../core/listingId.js';
import { describeSchema, healthSchema, paymentSchema, signalsSchema, TOOL_NAME } from './listingInput.js';

export type { Describe, Payment, Scheme } from './listingInput.js';

const debugSchema = {
  type: 'object',
  description:
    'Only with explain=1: score = relevance x priceBoost x recencyBoost x healthBoost x popularityBoost (SPEC 2.6; healthBoost is 1 for a healthy or never-checked listing, popularityBoost 1 without payers).',
  required: ['score', 'relevance', 'priceBoost', 'recencyBoost', 'healthBoost', 'popularityBoost'],
  additionalProperties: false,
  properties: {
    score: { type: 'number' },
    relevance: { type: 'number' },
    priceBoost: { type: 'number' },
    recencyBoost: { type: 'number' },
    healthBoost: { type: 'number', minimum: 0, maximum: 1 },
    popularityBoost: { type: 'number', minimum: 1, maximum: 2, description: 'Distinct payers of the last 7 days, log-damped: 1 without payers, at most 1 + popularity.weight.' },
    need: {
      type: 'object',
      description: 'A task query split into needs: the need this result answers (its position in the query, from 0, and its words). Absent for a query of one need.',
      required: ['index', 'text'],
      additionalProperties: false,
      properties: { index: { type: 'integer', minimum: 0 }, text: { type: 'string' } },
    },
    outcomes: {
      type: 'object',
      description: 'Paid outcomes: the relevance added because distinct payers paid for this listing after searches similar in meaning (at most outcomes.weight), and how many payers.',
      required: ['lift', 'payers'],
      additionalProperties: false,
      properties: { lift: { type: 'number', minimum: 0 }, payers: { type: 'integer', minimum: 1 } },
    },
  },
} as const;

/**
 * Where the service first heard of a listing when another catalog (an upstream) or a seller's site
 * file (a manifest) named it (issue 25; docs/federation.md). The listing itself is what the resource's
 * own 402 says; `claims` are the source's words about it (tags, service name, icon), kept apart
 * and never taken as the seller's declaration: a claim the resource's own 402 or its seller's
 * publish contradicts (another service name, description, tags or icon) is dropped (issue 43).
 * `provenance.discovered`: absent for listings announced, published or paid for directly; the
 * first source; every source that named it is in `provenance.namedBy`.
 */
export const discoveredSchema = {
  type: 'object',
  required: ['source', 'url', 'firstSeen'],
  additionalProperties: false,
  properties: {
    source: { enum: ['upstream', 'manifest'], description: 'An upstream catalog the operator configured, or a manifest read when an origin was announced.' },
    name: { type: 'string', description: 'The upstream as the operator named it (source upstream).' },
    url: { type: 'string', description: "The upstream's list endpoint or the manifest's URL." },
    firstSeen: { type: 'string', format: 'date-time', description: 'When that source first named the resource.' },
    claims: {
      type: 'object',
      description: "What the source says about the resource that its 402 does not: the source's claim, unverified.",
      additionalProperties: false,
      properties: {
        serviceName: { type: 'string' },
        description: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        icon: { type: 'string' },
        quality: { description: "The upstream's own quality figure, as it sent it." },
        lastUpdated: { type: 'string', format: 'date-time', description: 'When the source says the resource last changed.' },
      },
    },
  },
} as const;


const instant = { type: 'string', format: 'date-time' } as const;

/**
 * Every upstream or manifest that named the listing, each with when it first and last did (issue
 * 43: `discovered` kept only the first). At most eight, the most recently seen.
 */
export const namedBySchema = {
  type: 'array',
  description: 'Every upstream catalog or site manifest that named the resource, with when it first and last did (at most 8, the most recent).',
  maxItems: 8,
  items: {
    type: 'object',
    required: ['source', 'url', 'firstSeen', 'lastSeen'],
    additionalProperties: false,
    properties: {
      source: { enum: ['upstream', 'manifest'] },
      name: { type: 'string' },
      url: { type: 'string' },
      firstSeen: instant,
      lastSeen: instant,
    },
  },
} as const;

/**
 * The evidence a listing stands on (issue 24), each kind with its times; a kind the catalog has not
 * seen is absent. Written by the paths that saw it: the probe, the signals flush, publish, import,
 * and (`discovered`) the upstream crawler and the manifest reader (src/federation).
 */
export const provenanceSchema = {
  type: 'object',
  title: 'Provenance',
  description: 'The evidence the listing stands on, with timestamps; a kind of evidence the catalog never saw is absent.',
  additionalProperties: false,
  properties: {
    discovered: discoveredSchema,
    namedBy: namedBySchema,
    probed402: {
      type: 'object',
      description: "The last unpaid probe of the resource: 'valid_402', or why it failed (timeout, not_402, requirements_mismatch, ...).",
      required: ['lastStatus', 'lastAt'],
      additionalProperties: false,
      properties: { lastStatus: { type: 'string' }, lastAt: instant },
    },
    settled: {
      type: 'object',
      description: 'Settlements through this facilitator: the first and the last seen (to within one signals flush), and, settled on a chain, their transaction hashes.',
      required: ['first', 'last'],
      additionalProperties: false,
      properties: {
        first: instant,
        last: instant,
        firstTransaction: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: 'The transaction of the first settlement, when it was on a chain.' },
        lastTransaction: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: 'The transaction of the latest settlement on a chain.' },
      },
    },
    published: {
      type: 'object',
      description: "Published by its seller with a seller token: through the seller SDK ('sdk') or by hand ('manual'), last at `at`.",
      required: ['via', 'at'],
      additionalProperties: false,
      properties: { via: { type: 'string', enum: ['sdk', 'manual'] }, at: instant },
    },
    imported: {
      type: 'object',
      description: 'Imported by an operator (npm run import): the source the operator named, last at `at`.',
      required: ['source', 'at'],
      additionalProperties: false,
      properties: { source: { type: 'string' }, at: instant },
    },
  },
} as const;

/** Signals are always present in responses (zeros when nothing was seen). */
export const signalsResponseSchema = { ...signalsSchema, required: ['settleCount7d', 'rejectionRate7d'] } as const;


export const httpListingResponseSchema = {
  type: 'object',
  title: 'HttpListing',
  required: ['id', 'type', 'resource', 'payment', 'describe', 'signals', 'provenance'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: LISTING_ID_SOURCE },
    type: { const: 'http' },
    resource: { type: 'string', description: 'The endpoint URL; dynamic paths as {name} templates.' },
    payment: paymentSchema,
    describe: describeSchema,
    signals: signalsResponseSchema,
    provenance: provenanceSchema,
    debug: debugSchema,
  },
} as const;

export const mcpListingResponseSchema = {
  type: 'object',
  title: 'McpListing',
  required: ['id', 'type', 'resource', 'name', 'description', 'inputSchema', 'payment', 'signals', 'provenance'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: LISTING_ID_SOURCE },
    type: { const: 'mcp' },
    resource: { type: 'string', description: 'mcp://<host>/<tool_name>' },
    name: { type: 'string', pattern: TOOL_NAME },
    title: { type: 'string', description: 'Display name (x402 Bazaar serviceName), when the seller declared one.' },
    description: { type: 'string' },
    iconUrl: describeSchema.properties.iconUrl,
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    payment: paymentSchema,
    tags: describeSchema.properties.tags,
    signals: signalsResponseSchema,
    provenance: provenanceSchema,
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

export type ListingType = 'http' | 'mcp';

/**
 * Rolling 7-day traffic signals (docs/facilitator.md "Signals"). Written out rather
 * than derived: the response schema shares the input's `nullable` members (the OpenAPI document
 * publishes it so), while `toListing` never sends null. test/unit/shapes.test.ts checks that this
 * type and the schema agree.
 */
export interface Signals {
  lastSettled?: string;
  settleCount7d: number;
  rejectionRate7d: number;
  /**
   * Documented addition, `upto` listings only: the median amount actually settled in the last 7
   * days (base units, integer string), beside the ceiling in `payment.amount` (docs/facilitator.md "Reading an `upto` price").
   */
  medianSettledAmount7d?: string;
  /**
   * Documented additions (issue 24), present once this facilitator saw a settlement in the last 30
   * days: distinct payers of the last 7 days, the largest payer's share of the counted
   * settlements of the last 7 days (0..1), and the counted settlements and distinct payers of the
   * last 30 days. Distinct payers come from HyperLogLogs (within about 1%).
   */
  uniquePayers7d?: number;
  largestPayerShare7d?: number;
  settleCount30d?: number;
  uniquePayers30d?: number;
  /**
   * Documented addition (issue 13): the active health checks of the last 7 days. Absent (or null)
   * until the listing was checked once; MCP listings are not checked.
   */
  health?: Health | null;
}

/** What the unpaid re-checks of a listed HTTP resource found over the last 7 days (docs/health.md). */
export type Health = NonNullable<FromSchema<typeof healthSchema>>;

/** What a listing stands on (provenanceSchema). */
export type Provenance = FromSchema<typeof provenanceSchema>;
/** Where the service first heard of a listing another catalog or a manifest named (src/federation). */
export type Discovered = NonNullable<Provenance['discovered']>;

/** Only with `explain=1`: the factors of the score (docs/catalog-reads.md). */
export type Debug = FromSchema<typeof debugSchema>;

/** Signals replace the schema's nullable form (see Signals). */
export type HttpListing = Omit<FromSchema<typeof httpListingResponseSchema>, 'signals'> & { signals: Signals };
/** `resource` is `mcp://<host>/<tool_name>`; `tags` feed the `capability` filter. */
export type McpListing = Omit<FromSchema<typeof mcpListingResponseSchema>, 'signals'> & { signals: Signals };
export type Listing = HttpListing | McpListing;

/** Signals of a listing nobody has paid for yet. */
export const EMPTY_SIGNALS: Signals = { settleCount7d: 0, rejectionRate7d: 0 };
