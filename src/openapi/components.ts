/**
 * `components` of the OpenAPI document: the response and request shapes routes refer to with
 * `ref(name)`. Listing shapes and request bodies come from the modules that own them, so the
 * document cannot drift from what the service validates and sends.
 */
import { LISTING_ID_SOURCE } from '../core/listingId.js';
import { httpListingResponseSchema, listingPageSchema, listingResponseSchema, mcpListingResponseSchema } from '../shapes/listing.js';
import { merchantViewSchema } from '../shapes/merchant.js';
import { mcpListingSchema } from '../shapes/listingInput.js';
import { announceStatusSchema, probeStatusSchema } from '../shapes/announceStatus.js';
import type { OpenApiObject } from './builders.js';
import { reachSchemas } from './federationSchemas.js';

const ISO_TIME = { type: 'string', format: 'date-time' } as const;

const problem = {
  type: 'object',
  description: 'RFC 9457 problem details with a machine-readable `code` (README "Errors").',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', description: '`/problems/<code>`' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    code: { type: 'string' },
    instance: { type: 'string', description: '`urn:request:<X-Request-Id>`' },
    errors: {
      type: 'array',
      description: 'Validation errors: every failing field at once.',
      items: {
        type: 'object',
        required: ['path', 'message'],
        additionalProperties: false,
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

const announceRequest = {
  type: 'object',
  required: ['resource'],
  additionalProperties: false,
  properties: {
    resource: { type: 'string', minLength: 1, maxLength: 2048, description: 'The concrete http(s) URL that answers 402.' },
    method: { type: 'string', enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'get', 'head', 'post', 'put', 'patch', 'delete'] },
    routeTemplate: { type: 'string', minLength: 1, maxLength: 512, description: 'x402 route template such as /users/:id.' },
    challenge: {
      type: ['object', 'string'],
      description: 'The 402 served: a v1 body, a decoded v2 PaymentRequired, or the raw PAYMENT-REQUIRED header value.',
    },
  },
} as const;

const announceAccepted = {
  type: 'object',
  required: ['id', 'status', 'deduplicated', 'statusUrl'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: LISTING_ID_SOURCE },
    status: probeStatusSchema,
    deduplicated: { type: 'boolean', description: 'An earlier announce\'s probe (within PROBE_MIN_INTERVAL_MS) answers this one.' },
    statusUrl: { type: 'string' },
  },
} as const;

/** POST /discovery/publish: the catalog's MCP listing input without the fields the service owns. */
const { id: _id, signals: _signals, ...publishProperties } = mcpListingSchema.properties;
const publishRequest = { ...mcpListingSchema, properties: publishProperties } as const;

const facilitatorRequest = {
  type: 'object',
  description: 'x402 facilitator request (v2, or v1): docs/facilitator.md.',
  required: ['paymentPayload', 'paymentRequirements'],
  properties: {
    x402Version: { type: 'integer' },
    paymentPayload: { type: 'object' },
    paymentRequirements: { type: 'object' },
  },
} as const;

const verifyResponse = {
  type: 'object',
  required: ['isValid'],
  properties: {
    isValid: { type: 'boolean' },
    invalidReason: { type: 'string', description: 'x402 reason code (docs/facilitator.md).' },
    invalidMessage: { type: 'string' },
    payer: { type: 'string' },
  },
} as const;

const settleResponse = {
  type: 'object',
  required: ['success', 'transaction', 'network'],
  properties: {
    success: { type: 'boolean' },
    errorReason: { type: 'string' },
    errorMessage: { type: 'string' },
    payer: { type: 'string' },
    transaction: { type: 'string' },
    network: { type: 'string' },
    amount: { type: 'string', pattern: '^[0-9]+$' },
  },
} as const;

const supportedResponse = {
  type: 'object',
  required: ['kinds', 'extensions', 'signers'],
  additionalProperties: false,
  properties: {
    kinds: {
      type: 'array',
      items: {
        type: 'object',
        required: ['x402Version', 'scheme', 'network'],
        additionalProperties: false,
        properties: { x402Version: { type: 'integer' }, scheme: { type: 'string' }, network: { type: 'string' }, extra: { type: 'object' } },
      },
    },
    extensions: { type: 'array', items: { type: 'string' } },
    signers: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
    discovery: {
      type: 'object',
      description: 'This service\'s addition: where the Bazaar-shaped discovery surface is (paths relative to the origin).',
      properties: {
        bazaar: {
          type: 'object',
          required: ['url', 'resources', 'search'],
          properties: { url: { type: 'string' }, resources: { type: 'string' }, search: { type: 'string' } },
        },
      },
    },
  },
} as const;

const bazaarResource = {
  type: 'object',
  description: 'An x402 Bazaar discovery item (README "x402 Bazaar surface").',
  required: ['resource', 'type', 'x402Version', 'accepts', 'lastUpdated', 'extensions', 'metadata'],
  properties: {
    resource: { type: 'string' },
    type: { enum: ['http', 'mcp'] },
    x402Version: { const: 2 },
    accepts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['scheme', 'network', 'asset', 'amount'],
        properties: { scheme: { type: 'string' }, network: { type: 'string' }, asset: { type: 'string' }, amount: { type: 'string', pattern: '^[0-9]+$' } },
      },
    },
    lastUpdated: ISO_TIME,
    description: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    extensions: { type: 'object', required: ['bazaar'], properties: { bazaar: { type: 'object', required: ['info', 'schema'] } } },
    metadata: { type: 'object', required: ['id', 'signals'], properties: { id: { type: 'string', pattern: LISTING_ID_SOURCE }, title: { type: 'string' }, signals: { type: 'object' } } },
  },
} as const;

const bazaarList = {
  type: 'object',
  required: ['x402Version', 'items', 'pagination'],
  additionalProperties: false,
  properties: {
    x402Version: { const: 2 },
    items: { type: 'array', items: bazaarResource },
    pagination: {
      type: 'object',
      required: ['limit', 'offset', 'total'],
      additionalProperties: false,
      properties: { limit: { type: 'integer', minimum: 1 }, offset: { type: 'integer', minimum: 0 }, total: { type: 'integer', minimum: 0 } },
    },
  },
} as const;

const bazaarSearch = {
  type: 'object',
  required: ['x402Version', 'resources', 'partialResults', 'pagination'],
  additionalProperties: false,
  properties: {
    x402Version: { const: 2 },
    resources: { type: 'array', items: bazaarResource },
    partialResults: { type: 'boolean' },
    pagination: {
      type: 'object',
      required: ['limit', 'cursor'],
      additionalProperties: false,
      properties: { limit: { type: 'integer', minimum: 1 }, cursor: { type: ['string', 'null'] } },
    },
  },
} as const;

const checks = {
  type: 'object',
  required: ['elasticsearch', 'redis', 'listingIndex'],
  additionalProperties: false,
  properties: {
    elasticsearch: { enum: ['ok', 'unavailable'] },
    redis: { enum: ['ok', 'unavailable'] },
    // `missing` while the index is re-created; `unknown` when Elasticsearch does not answer.
    listingIndex: { enum: ['ok', 'missing', 'unknown'] },
  },
} as const;

export const components: OpenApiObject = {
  schemas: {
    Problem: problem,
    Listing: listingResponseSchema,
    HttpListing: httpListingResponseSchema,
    McpListing: mcpListingResponseSchema,
    ListingPage: listingPageSchema,
    MerchantView: merchantViewSchema,
    AnnounceRequest: announceRequest,
    AnnounceAccepted: announceAccepted,
    AnnounceStatus: announceStatusSchema,
    ...reachSchemas,
    PublishRequest: publishRequest,
    FacilitatorRequest: facilitatorRequest,
    VerifyResponse: verifyResponse,
    SettleResponse: settleResponse,
    SupportedResponse: supportedResponse,
    BazaarListResponse: bazaarList,
    BazaarSearchResponse: bazaarSearch,
    Health: { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { const: 'ok' } } },
    Ready: {
      type: 'object',
      required: ['status', 'checks'],
      additionalProperties: false,
      properties: {
        status: { const: 'ready' },
        checks,
        redisPersistence: {
          type: 'object',
          description: 'Whether the Redis the service writes to keeps acknowledged writes through a crash (an append-only file fsynced every second or always, or on a Cluster a replica per primary); absent when Redis did not answer.',
          required: ['durable', 'summary'],
          additionalProperties: false,
          properties: { durable: { type: 'boolean' }, summary: { type: 'string' } },
        },
        redisMemory: {
          type: 'object',
          description:
            "How full Redis is (the fullest primary): `near_limit` at 90% of maxmemory (writes are refused with 503 once it is reached), `no_limit` without maxmemory, `evicts` with a policy other than noeviction. A warning: the service stays ready for reads. Absent when Redis did not answer.",
          required: ['usedBytes', 'maxBytes', 'policy', 'state'],
          additionalProperties: false,
          properties: {
            usedBytes: { type: 'integer', minimum: 0 },
            maxBytes: { type: 'integer', minimum: 0 },
            policy: { type: 'string' },
            state: { enum: ['ok', 'near_limit', 'no_limit', 'evicts'] },
          },
        },
      },
    },
  },
  securitySchemes: {
    sellerToken: { type: 'http', scheme: 'bearer', description: 'A seller token bound to hosts (`npm run tokens -- issue --host HOST`).' },
  },
};
