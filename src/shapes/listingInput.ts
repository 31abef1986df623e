/**
 * JSON Schemas of a `ListingInput` (docs/catalog-write.md, "Validation") and the types derived from
 * them, so the schema ajv checks and the type the write path reads cannot drift apart. They are the
 * contract producers write against; checks JSON Schema cannot express (amount range, canonical
 * resource, network names, nested JSON Schemas) live in catalog/validation.ts.
 */
import type { FromSchema } from 'json-schema-to-ts';

/** Base-10 integer string: no sign, no leading zeros, no decimals or exponent. */
export const INTEGER_STRING = '^(0|[1-9][0-9]*)$';

const paymentProperties = {
  scheme: { type: 'string', enum: ['exact', 'upto'] },
  network: { type: 'string', minLength: 1, maxLength: 80 },
  asset: { type: 'string', minLength: 1, maxLength: 128 },
  amount: { type: 'string', pattern: INTEGER_STRING, maxLength: 19 },
  payTo: { type: 'string', minLength: 1, maxLength: 128 },
  maxTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
} as const;

export const paymentSchema = {
  type: 'object',
  required: ['scheme', 'network', 'asset', 'amount'],
  additionalProperties: false,
  properties: {
    ...paymentProperties,
    pricing: {
      type: 'object',
      required: ['unit', 'pricePerUnit'],
      additionalProperties: false,
      properties: {
        unit: { type: 'string', minLength: 1, maxLength: 64 },
        pricePerUnit: { type: 'string', pattern: INTEGER_STRING, maxLength: 19 },
      },
    },
  },
} as const;

/** `amount` is a base-10 integer string in the asset's smallest unit; `payTo` feeds the `payTo` filter. */
export type Payment = FromSchema<typeof paymentSchema>;
export type Scheme = Payment['scheme'];

/** An extra payment option of the resource (x402 `accepts`); `extra` is kept opaque. */
const acceptSchema = {
  type: 'object',
  required: ['scheme', 'network', 'asset', 'amount'],
  additionalProperties: false,
  properties: { ...paymentProperties, extra: { type: 'object' } },
} as const;

const tagsSchema = {
  type: 'array',
  maxItems: 32,
  items: { type: 'string', minLength: 1, maxLength: 64 },
} as const;

/** x402 Bazaar `resource.iconUrl`: an absolute http(s) URL (catalog/validation.ts checks it with x402/bazaarMetadata.ts). */
const iconUrlSchema = { type: 'string', minLength: 1, maxLength: 2048 } as const;

/** The listing's display name (x402 Bazaar `resource.serviceName` when the seller declared one). */
const titleSchema = { type: 'string', maxLength: 200 } as const;

export const describeSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: titleSchema,
    description: { type: 'string', maxLength: 4000 },
    tags: tagsSchema,
    iconUrl: iconUrlSchema,
    inputs: {
      type: 'object',
      maxProperties: 64,
      propertyNames: { minLength: 1, maxLength: 128 },
      additionalProperties: { type: 'string', maxLength: 200 },
    },
  },
} as const;

/** `signals.health` (issue 13, docs/health.md): what the unpaid re-checks found. */
export const healthSchema = {
  type: 'object',
  nullable: true,
  description: 'Active health checks of the last 7 days; absent until the listing was checked once (MCP tools: an unpaid call that answers with payment requirements is up).',
  required: ['uptime7d', 'latencyP50Ms', 'lastChecked'],
  additionalProperties: false,
  properties: {
    uptime7d: { type: 'number', minimum: 0, maximum: 1, description: 'Share of checks that found a valid 402 matching the listing.' },
    latencyP50Ms: { type: 'integer', minimum: 0, nullable: true, description: 'Median time to that 402 over the successful checks; null when none succeeded.' },
    lastChecked: { type: 'string', format: 'date-time' },
  },
} as const;

/** Seller-declared metadata, matched by search and carried with every 402. */
export type Describe = FromSchema<typeof describeSchema>;

/**
 * `null` (the whole block or a member) is what other catalogs export for "never settled"; the write
 * path reads it as absent: no lastSettled, zero counts (docs/catalog-write.md "Commands").
 */
export const signalsSchema = {
  type: 'object',
  nullable: true,
  additionalProperties: false,
  properties: {
    lastSettled: { type: 'string', format: 'date-time', nullable: true },
    settleCount7d: { type: 'integer', minimum: 0, maximum: 2_147_483_647, nullable: true },
    rejectionRate7d: { type: 'number', minimum: 0, maximum: 1, nullable: true },
    // Exports carry it for upto listings, so a re-import must accept it (docs/facilitator.md "Reading an `upto` price").
    medianSettledAmount7d: { type: 'string', pattern: INTEGER_STRING, maxLength: 19, nullable: true },
    // Demand evidence (issue 24): exports carry it, so a re-import accepts it.
    uniquePayers7d: { type: 'integer', minimum: 0, maximum: 2_147_483_647, nullable: true },
    largestPayerShare7d: { type: 'number', minimum: 0, maximum: 1, nullable: true },
    settleCount30d: { type: 'integer', minimum: 0, maximum: 2_147_483_647, nullable: true },
    uniquePayers30d: { type: 'integer', minimum: 0, maximum: 2_147_483_647, nullable: true },
    // Exports carry it too; a write never sets it (only the service's own checks do), so it is ignored.
    health: healthSchema,
  },
} as const;

/** Signals as imports carry them: in part, `null` for "never settled". */
export type SignalsInput = FromSchema<typeof signalsSchema>;

/** The envelope every listing shares; checked first so a bad `type` gives one clear error. */
export const envelopeSchema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', enum: ['http', 'mcp'] } },
} as const;

export const httpListingSchema = {
  type: 'object',
  required: ['type', 'resource', 'payment'],
  additionalProperties: false,
  properties: {
    // Accepted and ignored: ids are derived from the canonical key (import files carry them).
    id: { type: 'string' },
    type: { const: 'http' },
    resource: { type: 'string', minLength: 1, maxLength: 2048 },
    method: { type: 'string', minLength: 1, maxLength: 16 },
    routeTemplate: { type: 'string', pattern: '^/', maxLength: 2048 },
    payment: paymentSchema,
    accepts: { type: 'array', maxItems: 16, items: acceptSchema },
    describe: describeSchema,
    signals: signalsSchema,
  },
} as const;

/** MCP tool names: the characters the MCP SDK and clients accept. */
export const TOOL_NAME = '^[A-Za-z0-9_.:-]{1,128}$';

export const mcpListingSchema = {
  type: 'object',
  required: ['type', 'resource', 'name', 'description', 'inputSchema', 'payment'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    type: { const: 'mcp' },
    resource: { type: 'string', minLength: 1, maxLength: 2048 },
    name: { type: 'string', pattern: TOOL_NAME },
    title: titleSchema,
    description: { type: 'string', maxLength: 4000 },
    iconUrl: iconUrlSchema,
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    payment: paymentSchema,
    tags: tagsSchema,
    signals: signalsSchema,
  },
} as const;

/** An option of x402 `accepts` as the catalog keeps it: a payment with opaque scheme parameters. */
export type AcceptedPayment = FromSchema<typeof acceptSchema>;
/** `id` is accepted and ignored (derived from the canonical key); `method` defaults to GET. */
export type HttpListingInput = FromSchema<typeof httpListingSchema>;
/** The id is derived from the resource; signals may be seeded in part (imports carry them). */
export type McpListingInput = FromSchema<typeof mcpListingSchema>;
export type ListingInput = HttpListingInput | McpListingInput;
