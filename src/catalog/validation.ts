/**
 * Validation of a `ListingInput` before anything is written: ajv for the shape (listingSchema.ts),
 * then the rules a JSON Schema cannot state. Every failing field is reported at once, one entry per
 * field, so a seller fixes a listing in one round trip.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { canonicalizeHttpUrl, canonicalizeMcpResource, InvalidResourceError } from './identity.js';
import { envelopeSchema, httpListingSchema, mcpListingSchema } from './listingSchema.js';
import { toCaip2Network } from './networks.js';
import type { Payment } from './listing.js';
import type { InvalidField, ListingInput } from './writer.js';

/** Thrown by the writer for an invalid listing; publish answers it with `400 invalid_listing`. */
export class InvalidListingError extends Error {
  constructor(readonly errors: InvalidField[]) {
    super(`invalid listing: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
    this.name = 'InvalidListingError';
  }
}

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** The mapping stores `payment.amount` as a signed 64-bit `long`. */
const MAX_AMOUNT = '9223372036854775807';
const ROOT_PATH = '(root)';

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

function describeAjvError(error: ErrorObject): InvalidField {
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

function checkPayment(payment: Partial<Payment> | undefined, path: string, out: InvalidField[]): void {
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
}

function checkToolSchema(schema: unknown, path: string, out: InvalidField[]): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
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

function checkResource(input: Record<string, unknown>, out: InvalidField[]): void {
  if (typeof input.resource !== 'string') return;
  try {
    if (input.type === 'http') {
      canonicalizeHttpUrl(input.resource, typeof input.routeTemplate === 'string' ? input.routeTemplate : undefined);
    } else if (typeof input.name === 'string') {
      canonicalizeMcpResource(input.resource, input.name);
    }
  } catch (err) {
    if (!(err instanceof InvalidResourceError)) throw err;
    out.push({ path: 'resource', message: err.message.replace(/^resource "[^"]*": /, '') });
  }
}

/** Every failing field of a listing input; an empty array means it is valid. */
export function validateListingInput(input: unknown): InvalidField[] {
  if (!validators.envelope(input)) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return [{ path: ROOT_PATH, message: 'must be a JSON object' }];
    return [{ path: 'type', message: (input as { type?: unknown }).type === undefined ? 'is required' : 'must be one of ["http","mcp"]' }];
  }
  const record = input as Record<string, unknown>;
  const validate = record.type === 'http' ? validators.http : validators.mcp;
  const found: InvalidField[] = validate(input) ? [] : (validate.errors ?? []).map(describeAjvError);
  if (record.type === 'http' && typeof record.method === 'string' && !(HTTP_METHODS as readonly string[]).includes(record.method.toUpperCase())) {
    found.push({ path: 'method', message: `must be one of ${HTTP_METHODS.join(', ')}` });
  }
  checkResource(record, found);
  checkPayment(record.payment as Partial<Payment> | undefined, 'payment', found);
  const median = (record.signals as { medianSettledAmount7d?: unknown } | null | undefined)?.medianSettledAmount7d;
  if (amountTooLarge(median)) found.push({ path: 'signals.medianSettledAmount7d', message: `must be at most ${MAX_AMOUNT}` });
  if (Array.isArray(record.accepts)) record.accepts.forEach((a, i) => checkPayment(a as Partial<Payment>, `accepts.${i}`, found));
  if (record.type === 'mcp') {
    checkToolSchema(record.inputSchema, 'inputSchema', found);
    checkToolSchema(record.outputSchema, 'outputSchema', found);
  }
  // One entry per field: the first (most specific) reason wins.
  const seen = new Set<string>();
  return found.filter((e) => (seen.has(e.path) ? false : (seen.add(e.path), true)));
}

/** Validates and returns the input typed, or throws InvalidListingError with every failing field. */
export function assertValidListingInput(input: unknown): ListingInput {
  const errors = validateListingInput(input);
  if (errors.length > 0) throw new InvalidListingError(errors);
  return input as ListingInput;
}
