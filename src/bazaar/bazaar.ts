/**
 * The x402 Bazaar discovery wire shapes (x402 `specs/extensions/bazaar.md`, as `x402`'s
 * `useFacilitator().list()` and `@x402/extensions`' `withBazaar()` read them), and the catalog's
 * stored listing in that shape. The service's own shapes stay in src/shapes/listing.ts; this is a second
 * view of the same documents, built field by field so internals cannot leak (docs/bazaar.md).
 */
import { publicPayment, publicProvenance, publicSignals } from '../catalog/listing.js';
import type { Payment, Provenance, Signals } from '../shapes/listing.js';
import type { ListingDocument } from '../store/listingDocument.js';
import type { PaymentRequirements } from '../x402/wire.js';

/** Where the Bazaar-shaped surface lives: the URL to give x402 clients as their facilitator is the service's origin + this. */
export const BAZAAR_BASE_PATH = '/x402';

/** How /supported advertises the surface (paths relative to the service's origin). */
export const BAZAAR_DISCOVERY = {
  url: BAZAAR_BASE_PATH,
  resources: `${BAZAAR_BASE_PATH}/discovery/resources`,
  search: `${BAZAAR_BASE_PATH}/discovery/search`,
} as const;

/** One catalog entry as a Bazaar `DiscoveryResource`. */
export interface BazaarResource {
  resource: string;
  type: 'http' | 'mcp';
  x402Version: 2;
  /** v2 payment requirements (`amount`, CAIP-2 network); `payTo` and `maxTimeoutSeconds` when known. */
  accepts: Array<Partial<PaymentRequirements> & Pick<PaymentRequirements, 'scheme' | 'network' | 'asset' | 'amount'>>;
  lastUpdated: string;
  description?: string;
  /** The listing's title (x402 Bazaar serviceName), its tags and icon, as x402's `DiscoveryResource` names them. */
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
  extensions: { bazaar: { info: { input: Record<string, unknown> }; schema: Record<string, unknown> } };
  /**
   * Demand as CDP's Bazaar shapes it: the last 30 days' counted settlements and distinct payers
   * through this facilitator, and the last settlement (absent when never paid).
   */
  quality: { l30DaysTotalCalls: number; l30DaysUniquePayers: number; lastCalledAt?: string };
  /** This service's addition (x402 v1's `DiscoveredResource.metadata`): listing id, title, settlement signals, provenance. */
  metadata: { id: string; title?: string; signals: Signals; provenance: Provenance };
}

export interface BazaarListResponse {
  x402Version: 2;
  items: BazaarResource[];
  pagination: { limit: number; offset: number; total: number };
}

export interface BazaarSearchResponse {
  x402Version: 2;
  resources: BazaarResource[];
  /** True when more matches exist than this page holds (`pagination.cursor` fetches them). */
  partialResults: boolean;
  pagination: { limit: number; cursor: string | null };
}

/** What `toBazaarResource` reads: the search asks Elasticsearch for these fields only. */
export const BAZAAR_SOURCE_FIELDS = [
  'id', 'type', 'resource', 'method', 'name', 'title', 'description', 'inputSchema', 'tags', 'iconUrl', 'payment', 'accepts', 'describe', 'signals', 'provenance', 'updatedAt',
] as const;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const SCHEMA_DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } };

/** The JSON Schema (draft 2020-12) a bazaar extension's `info` is validated with, around its `input` schema. */
const envelope = (input: Record<string, unknown>) => ({ $schema: SCHEMA_DRAFT, type: 'object', properties: { input }, required: ['input'] });

function requirement(payment: Payment & { extra?: Record<string, unknown> }): BazaarResource['accepts'][number] {
  // `pricing` (metered MCP tools) is this catalog's own member, not an x402 requirement field.
  const { pricing: _pricing, ...fields } = publicPayment(payment);
  return payment.extra != null ? { ...fields, extra: payment.extra } : fields;
}

/** The declared inputs (`{ city: 'string' }`) as JSON Schema properties; a non-JSON type name stays as a description. */
function inputProperties(inputs: Record<string, string> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(inputs ?? {}).map(([name, type]) => [name, JSON_TYPES.has(type) ? { type } : { description: type }]));
}

/** The bazaar extension of an HTTP listing: its method in `info`, its declared inputs in `schema`. */
function httpExtension(doc: ListingDocument): BazaarResource['extensions']['bazaar'] {
  const method = (doc.method ?? 'GET').toUpperCase();
  const inputs = { type: 'object', properties: inputProperties(doc.describe?.inputs ?? undefined) };
  const withBody = BODY_METHODS.has(method);
  const input = withBody ? { type: 'http', method, bodyType: 'json', body: {} } : { type: 'http', method };
  const properties: Record<string, unknown> = {
    type: { type: 'string', const: 'http' },
    method: { type: 'string', enum: withBody ? ['POST', 'PUT', 'PATCH'] : ['GET', 'HEAD', 'DELETE'] },
    ...(withBody ? { bodyType: { type: 'string', enum: ['json', 'form-data', 'text'] }, body: inputs, queryParams: STRING_MAP } : { queryParams: inputs }),
    headers: STRING_MAP,
  };
  const required = withBody ? ['type', 'method', 'bodyType', 'body'] : ['type', 'method'];
  return { info: { input }, schema: envelope({ type: 'object', properties, required, additionalProperties: false }) };
}

function mcpExtension(doc: ListingDocument): BazaarResource['extensions']['bazaar'] {
  const input = { type: 'mcp', toolName: doc.name ?? '', description: doc.description ?? '', inputSchema: doc.inputSchema ?? { type: 'object' } };
  const schema = {
    type: 'object',
    properties: {
      type: { type: 'string', const: 'mcp' },
      toolName: { type: 'string' },
      description: { type: 'string' },
      transport: { type: 'string', enum: ['streamable-http', 'sse'] },
      inputSchema: { type: 'object' },
      example: { type: 'object' },
    },
    required: ['type', 'toolName', 'inputSchema'],
    additionalProperties: false,
  };
  return { info: { input }, schema: envelope(schema) };
}

/** CDP's `quality` block from the listing's signals. */
function qualityOf(signals: Signals): BazaarResource['quality'] {
  return {
    l30DaysTotalCalls: signals.settleCount30d ?? 0,
    l30DaysUniquePayers: signals.uniquePayers30d ?? 0,
    ...(signals.lastSettled ? { lastCalledAt: signals.lastSettled } : {}),
  };
}

/** A stored listing as a Bazaar `DiscoveryResource`. */
export function toBazaarResource(doc: ListingDocument): BazaarResource {
  const signals = publicSignals(doc.signals);
  const accepts = doc.accepts && doc.accepts.length > 0 ? doc.accepts : [doc.payment];
  const description = doc.type === 'mcp' ? doc.description : (doc.describe?.description ?? doc.describe?.title);
  const tags = doc.type === 'mcp' ? doc.tags : doc.describe?.tags;
  const title = doc.type === 'http' ? doc.describe?.title : doc.title;
  const iconUrl = doc.type === 'http' ? doc.describe?.iconUrl : doc.iconUrl;
  return {
    resource: doc.resource,
    type: doc.type,
    x402Version: 2,
    accepts: accepts.map(requirement),
    lastUpdated: doc.updatedAt,
    ...(description ? { description } : {}),
    ...(title ? { serviceName: title } : {}),
    ...(tags && tags.length > 0 ? { tags } : {}),
    ...(iconUrl ? { iconUrl } : {}),
    extensions: { bazaar: doc.type === 'mcp' ? mcpExtension(doc) : httpExtension(doc) },
    quality: qualityOf(signals),
    metadata: {
      id: doc.id,
      ...(title ? { title } : {}),
      signals,
      provenance: publicProvenance(doc.provenance),
    },
  };
}
