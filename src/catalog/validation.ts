/**
 * Validation of a `ListingInput` before anything is written: ajv for the shape (shapes/listingInput.ts),
 * then the rules a JSON Schema cannot state. Every failing field is reported at once, one entry per
 * field, so a seller fixes a listing in one round trip.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { HTTP_METHODS, httpMethod } from '../core/httpMethods.js';
import { canonicalIdentity, InvalidResourceError, type CanonicalIdentity } from './identity.js';
import { envelopeSchema, httpListingSchema, mcpListingSchema, type ListingInput } from '../shapes/listingInput.js';
import { toCaip2Network } from '../x402/networks.js';
import { cleanIconUrl } from '../x402/bazaarMetadata.js';
import { pathBeyondDepth } from '../core/jsonDepth.js';
import type { Payment } from '../shapes/listing.js';
import type { FieldError } from '../core/errors.js';

/** Thrown by the writer for an invalid listing; publish answers it with `400 invalid_listing`. */
export class InvalidListingError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(`invalid listing: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    this.name = 'InvalidListingError';
  }
}


/** The mapping stores `payment.amount` as a signed 64-bit `long`. */
const MAX_AMOUNT = '9223372036854775807';
const ROOT_PATH = '(root)';

/**
 * Bounds that keep every accepted listing indexable (docs/catalog-write.md "Validation"):
 * Elasticsearch refuses a document nested deeper than 1000 levels and a keyword over 32766 bytes,
 * and a 64 MB `_bulk` of large documents trips its memory breakers. Checked here, so a write is
 * refused when it is made (publish answers 400) instead of being dead-lettered after a 201.
 */
export const LISTING_BOUNDS = {
  /** Objects and arrays nested in a whole listing (the listing itself is level 1). */
  depth: 40,
  /** The listing as JSON. */
  bytes: 64 * 1024,
  /** inputSchema / outputSchema: nesting (the schema object is level 1) and JSON size. */
  schemaDepth: 32,
  schemaBytes: 32 * 1024,
  /** accepts[].extra (x402 scheme parameters such as the token's EIP-712 name and version). */
  extraDepth: 8,
  extraBytes: 4 * 1024,
  /** The canonical resource (a keyword; URL encoding can make it longer than the input). */
  resourceBytes: 8 * 1024,
} as const;

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');

/** Depth and size of one nested member; the depth is checked first, so JSON.stringify never overflows. */
function checkBounded(value: unknown, path: string, maxDepth: number, maxBytes: number, out: FieldError[]): boolean {
  if (value === undefined) return true;
  if (pathBeyondDepth(value, maxDepth)) {
    out.push({ path, message: `must not nest objects and arrays deeper than ${maxDepth} levels` });
    return false;
  }
  if (jsonBytes(value) > maxBytes) {
    out.push({ path, message: `must be at most ${maxBytes} bytes as JSON` });
    return false;
  }
  return true;
}

type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = ((formatsModule as unknown as { default?: FormatsPlugin }).default ?? formatsModule) as unknown as FormatsPlugin;

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
const validators: Record<'envelope' | 'http' | 'mcp', ValidateFunction> = {
  envelope: ajv.compile(envelopeSchema),
  http: ajv.compile(httpListingSchema),
  mcp: ajv.compile(mcpListingSchema),
};
/** Checks sellers' tool schemas against the JSON Schema meta-schema without compiling them. */
const metaChecker = new Ajv({ strict: false, validateSchema: true });

function toPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.length > 0 ? parts.join('.') : ROOT_PATH;
}

function describeAjvError(error: ErrorObject): FieldError {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: toPath(error.instancePath, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { path: toPath(error.instancePath, String(params.additionalProperty)), message: 'is not an accepted field' };
    case 'pattern':
      if (/\/(amount|pricePerUnit)$/.test(error.instancePath)) {
        return {
          path: toPath(error.instancePath),
          message: "must be a base-10 integer string in the asset's smallest unit (no sign, decimals, exponent or leading zeros)",
        };
      }
      if (error.instancePath.endsWith('/name')) {
        return { path: toPath(error.instancePath), message: 'must be 1-128 characters of letters, digits, _ . : -' };
      }
      return { path: toPath(error.instancePath), message: error.message ?? 'is invalid' };
    case 'const':
    case 'enum':
      return { path: toPath(error.instancePath), message: `must be one of ${JSON.stringify(params.allowedValues ?? [params.allowedValue])}` };
    default:
      return { path: toPath(error.instancePath), message: error.message ?? 'is invalid' };
  }
}

function amountTooLarge(value: unknown): boolean {
  return typeof value === 'string' && /^\d+$/.test(value) && (value.length > MAX_AMOUNT.length || (value.length === MAX_AMOUNT.length && value > MAX_AMOUNT));
}

function checkPayment(payment: Partial<Payment> | undefined, path: string, out: FieldError[]): void {
  if (!payment || typeof payment !== 'object') return;
  if (typeof payment.network === 'string' && toCaip2Network(payment.network) === undefined) {
    out.push({
      path: `${path}.network`,
      message: 'must be a CAIP-2 network identifier (e.g. eip155:84532) or a known x402 network name (e.g. base-sepolia)',
    });
  }
  if (amountTooLarge(payment.amount)) out.push({ path: `${path}.amount`, message: `must be at most ${MAX_AMOUNT}` });
  if (amountTooLarge(payment.pricing?.pricePerUnit)) {
    out.push({ path: `${path}.pricing.pricePerUnit`, message: `must be at most ${MAX_AMOUNT}` });
  }
  const extra = (payment as { extra?: unknown }).extra;
  checkBounded(extra, `${path}.extra`, LISTING_BOUNDS.extraDepth, LISTING_BOUNDS.extraBytes, out);
}

/** ajv's date-time format admits leap seconds and offsets that move the year out of range; the stored date must parse. */
function checkLastSettled(signals: unknown, out: FieldError[]): void {
  const value = (signals as { lastSettled?: unknown } | undefined)?.lastSettled;
  if (typeof value !== 'string') return;
  const at = Date.parse(value);
  if (Number.isNaN(at) || at < 0 || at >= Date.UTC(10_000, 0, 1)) {
    out.push({ path: 'signals.lastSettled', message: 'must be a date-time between 1970 and 9999 (UTC)' });
  }
}

function checkToolSchema(schema: unknown, path: string, out: FieldError[]): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  if (!checkBounded(schema, path, LISTING_BOUNDS.schemaDepth, LISTING_BOUNDS.schemaBytes, out)) return;
  const s = schema as Record<string, unknown>;
  if (s.type !== 'object') out.push({ path: `${path}.type`, message: 'must be "object": an MCP tool schema describes the arguments object' });
  if (s.properties !== undefined && (typeof s.properties !== 'object' || s.properties === null || Array.isArray(s.properties))) {
    out.push({ path: `${path}.properties`, message: 'must be an object mapping property names to JSON Schemas' });
  }
  if (s.required !== undefined && !(Array.isArray(s.required) && s.required.every((r) => typeof r === 'string'))) {
    out.push({ path: `${path}.required`, message: 'must be an array of property names' });
  }
  // The meta-schema check is against draft-07 whatever `$schema` says (the MCP SDK emits draft-07).
  const { $schema: _ignored, ...rest } = s;
  let valid = false;
  try {
    valid = metaChecker.validateSchema(rest) as boolean;
  } catch {
    valid = false;
  }
  if (!valid && out.every((e) => !e.path.startsWith(path))) {
    out.push({ path, message: `must be a valid JSON Schema: ${metaChecker.errorsText(metaChecker.errors, { dataVar: path })}` });
  }
}

/** The icon URL (MCP: `iconUrl`, HTTP: `describe.iconUrl`) by the x402 Bazaar rules every path reads it with. */
function checkIconUrl(record: Record<string, unknown>, out: FieldError[]): void {
  const describe = record.describe as { iconUrl?: unknown } | undefined;
  const [path, value] = record.type === 'mcp' ? ['iconUrl', record.iconUrl] : ['describe.iconUrl', describe?.iconUrl];
  if (typeof value === 'string' && cleanIconUrl(value) === undefined) {
    out.push({ path, message: 'must be an absolute http(s) URL without credentials whose host is a name (not an IP address or localhost)' });
  }
}

/** The canonical identity of the resource, computed here once; undefined (and an error) when it has none. */
function checkResource(input: Record<string, unknown>, out: FieldError[]): CanonicalIdentity | undefined {
  if (typeof input.resource !== 'string') return undefined;
  let identity: CanonicalIdentity | undefined;
  try {
    if (input.type === 'http') {
      identity = canonicalIdentity({
        type: 'http',
        resource: input.resource,
        method: typeof input.method === 'string' ? input.method.toUpperCase() : 'GET',
        ...(typeof input.routeTemplate === 'string' ? { routeTemplate: input.routeTemplate } : {}),
      });
    } else if (typeof input.name === 'string') {
      identity = canonicalIdentity({ type: 'mcp', resource: input.resource, name: input.name });
    }
  } catch (err) {
    if (!(err instanceof InvalidResourceError)) throw err;
    out.push({ path: 'resource', message: err.message.replace(/^resource "[^"]*": /, '') });
    return undefined;
  }
  if (identity !== undefined && Buffer.byteLength(identity.resource) > LISTING_BOUNDS.resourceBytes) {
    out.push({ path: 'resource', message: `must be at most ${LISTING_BOUNDS.resourceBytes} bytes once canonicalized (percent-encoded)` });
    return undefined;
  }
  return identity;
}

/**
 * A listing input that passed every check, with the canonical identity the check computed, so the
 * write path neither checks nor canonicalizes it again. Only checkListingInput makes one.
 */
export class CheckedListing {
  private constructor(
    readonly input: ListingInput,
    readonly identity: CanonicalIdentity,
  ) {}

  /** @internal checkListingInput's constructor. */
  static of(input: ListingInput, identity: CanonicalIdentity): CheckedListing {
    return new CheckedListing(input, identity);
  }
}

/** The error for a listing nested past LISTING_BOUNDS.depth, named by the member that carries it. */
function tooDeepField(path: string[]): FieldError {
  const [field = ROOT_PATH, index, member] = path;
  if (field === 'inputSchema' || field === 'outputSchema') {
    return { path: field, message: `must not nest objects and arrays deeper than ${LISTING_BOUNDS.schemaDepth} levels` };
  }
  if (field === 'accepts' && member === 'extra') {
    return { path: `accepts.${index}.extra`, message: `must not nest objects and arrays deeper than ${LISTING_BOUNDS.extraDepth} levels` };
  }
  return { path: field, message: 'is nested too deeply' };
}

/** Every failing field of a listing input; an empty array means it is valid. */
export function validateListingInput(input: unknown): FieldError[] {
  const result = checkListingInput(input);
  return result.ok ? [] : result.errors;
}

/** Validates and canonicalizes once: the checked listing, or every failing field (one per field). */
export function checkListingInput(input: unknown): { ok: true; listing: CheckedListing } | { ok: false; errors: FieldError[] } {
  if (!validators.envelope(input)) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return { ok: false, errors: [{ path: ROOT_PATH, message: 'must be a JSON object' }] };
    return { ok: false, errors: [{ path: 'type', message: (input as { type?: unknown }).type === undefined ? 'is required' : 'must be one of ["http","mcp"]' }] };
  }
  // Before anything recursive (ajv, JSON.stringify) walks it.
  const tooDeep = pathBeyondDepth(input, LISTING_BOUNDS.depth);
  if (tooDeep) return { ok: false, errors: [tooDeepField(tooDeep)] };
  if (jsonBytes(input) > LISTING_BOUNDS.bytes) return { ok: false, errors: [{ path: ROOT_PATH, message: `must be at most ${LISTING_BOUNDS.bytes} bytes as JSON` }] };
  const record = input as Record<string, unknown>;
  const validate = record.type === 'http' ? validators.http : validators.mcp;
  const found: FieldError[] = validate(input) ? [] : (validate.errors ?? []).map(describeAjvError);
  if (record.type === 'http' && typeof record.method === 'string' && httpMethod(record.method) === undefined) {
    found.push({ path: 'method', message: `must be one of ${HTTP_METHODS.join(', ')}` });
  }
  const identity = checkResource(record, found);
  checkPayment(record.payment as Partial<Payment> | undefined, 'payment', found);
  checkLastSettled(record.signals, found);
  const median = (record.signals as { medianSettledAmount7d?: unknown } | null | undefined)?.medianSettledAmount7d;
  if (amountTooLarge(median)) found.push({ path: 'signals.medianSettledAmount7d', message: `must be at most ${MAX_AMOUNT}` });
  if (Array.isArray(record.accepts)) record.accepts.forEach((a, i) => checkPayment(a as Partial<Payment>, `accepts.${i}`, found));
  checkIconUrl(record, found);
  if (record.type === 'mcp') {
    checkToolSchema(record.inputSchema, 'inputSchema', found);
    checkToolSchema(record.outputSchema, 'outputSchema', found);
  }
  // One entry per field: the first (most specific) reason wins.
  const seen = new Set<string>();
  const errors = found.filter((e) => (seen.has(e.path) ? false : (seen.add(e.path), true)));
  if (errors.length > 0 || !identity) return { ok: false, errors: errors.length > 0 ? errors : [{ path: 'resource', message: 'is required' }] };
  return { ok: true, listing: CheckedListing.of(input as ListingInput, identity) };
}

/** The checked listing, or InvalidListingError with every failing field. */
export function assertValidListingInput(input: unknown): CheckedListing {
  const result = checkListingInput(input);
  if (!result.ok) throw new InvalidListingError(result.errors);
  return result.listing;
}
