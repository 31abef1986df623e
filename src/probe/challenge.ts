/**
 * Reads a 402 payment challenge the way real x402 sellers send it:
 *  - v1: JSON body `{x402Version: 1, accepts: [{scheme, network: 'base-sepolia', maxAmountRequired,
 *    asset, payTo, resource, description, outputSchema: {input, output}, extra}]}`;
 *  - v2: `PAYMENT-REQUIRED` header, base64 of `{x402Version: 2, resource: {url, description,
 *    mimeType}, accepts: [{scheme, network: 'eip155:84532', amount, asset, payTo, maxTimeoutSeconds,
 *    extra}], extensions: {bazaar: {info, schema, routeTemplate?}}}`.
 * Both become one normalized shape with CAIP-2 networks, so announced and probed challenges compare.
 */
import { httpMethod } from '../core/httpMethods.js';
import { isObject, type JsonObject } from '../core/json.js';
import type { Describe, Payment, Scheme } from '../shapes/listing.js';
import { paymentSchema, type AcceptedPayment } from '../shapes/listingInput.js';
import { toCaip2Network } from '../x402/networks.js';
import { decodeBase64Json, HEADERS, type PaymentRequired, type PaymentRequiredV1 } from '../x402/wire.js';
import { describeFromChallenge } from './challengeDescribe.js';
import { bazaarMetadataOf } from '../x402/bazaarMetadata.js';

export type { AcceptedPayment };
type X402Version = PaymentRequired['x402Version'] | PaymentRequiredV1['x402Version'];

export interface ParsedChallenge {
  version: X402Version;
  /** The options with a scheme and network the catalog knows (exact/upto, CAIP-2-mappable). */
  accepts: AcceptedPayment[];
  describe?: Describe;
  routeTemplate?: string;
  /** HTTP method the seller declared (bazaar `info.input.method` or v1 `outputSchema.input.method`). */
  method?: string;
}

export class ChallengeError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'ChallengeError';
  }
}

const SCHEMES: readonly string[] = paymentSchema.properties.scheme.enum;
const INTEGER = /^(0|[1-9][0-9]{0,18})$/;


const text = (value: unknown, max: number): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;

/** The `PAYMENT-REQUIRED` header value (base64 JSON, standard or url-safe alphabet), decoded as x402/wire.ts does. */
export function decodeChallengeHeader(value: string): JsonObject {
  const decoded = decodeBase64Json(value);
  if (!decoded) throw new ChallengeError(`the ${HEADERS.paymentRequired} value is not base64 of a JSON object`);
  return decoded;
}

/** A challenge as announced: a v1/v2 object, or the v2 header string. */
export function parseAnnouncedChallenge(challenge: unknown): ParsedChallenge {
  return parseChallenge(typeof challenge === 'string' ? decodeChallengeHeader(challenge) : challenge);
}

export function parseChallenge(raw: unknown): ParsedChallenge {
  if (!isObject(raw)) throw new ChallengeError('the challenge is not a JSON object');
  const version = raw.x402Version;
  if (version !== 1 && version !== 2) throw new ChallengeError('x402Version must be 1 or 2');
  if (!Array.isArray(raw.accepts) || raw.accepts.length === 0) throw new ChallengeError('accepts must be a non-empty array');
  if (raw.accepts.length > 32) throw new ChallengeError('accepts lists more than 32 payment options');

  const accepts: AcceptedPayment[] = [];
  const skipped: string[] = [];
  raw.accepts.forEach((entry, index) => {
    const parsed = parseAccept(entry, version);
    if (typeof parsed === 'string') skipped.push(`accepts[${index}]: ${parsed}`);
    else accepts.push(parsed);
  });
  if (accepts.length === 0) throw new ChallengeError(`no usable payment option (${skipped.join('; ')})`);

  const extensions = isObject(raw.extensions) ? raw.extensions : {};
  const bazaar = isObject(extensions.bazaar) ? extensions.bazaar : undefined;
  const firstAccept = raw.accepts.find(isObject);
  // The bazaar extension's routeTemplate wins; a top-level one is read as some sellers send it.
  const topLevelTemplate = typeof raw.routeTemplate === 'string' ? { routeTemplate: raw.routeTemplate } : {};
  const metadata = bazaarMetadataOf(raw.resource, { ...topLevelTemplate, ...bazaar });
  if (metadata.invalidRouteTemplate !== undefined) {
    throw new ChallengeError(`routeTemplate ${JSON.stringify(metadata.invalidRouteTemplate)} is not a path template`);
  }
  const routeTemplate = metadata.routeTemplate;
  const method = declaredMethod(bazaar, firstAccept);
  const describe = describeFromChallenge(raw, bazaar, firstAccept, metadata);

  const parsed: ParsedChallenge = { version, accepts };
  if (describe) parsed.describe = describe;
  if (routeTemplate) parsed.routeTemplate = routeTemplate;
  if (method) parsed.method = method;
  return parsed;
}

function parseAccept(entry: unknown, version: X402Version): AcceptedPayment | string {
  if (!isObject(entry)) return 'not an object';
  const scheme = entry.scheme;
  if (typeof scheme !== 'string' || !SCHEMES.includes(scheme)) {
    return `scheme ${JSON.stringify(scheme)} is not exact or upto`;
  }
  const network = typeof entry.network === 'string' ? toCaip2Network(entry.network) : undefined;
  if (!network) return `network ${JSON.stringify(entry.network)} is unknown`;
  // v1 names the price maxAmountRequired; v2 amount. Accept either in both, as sellers mix them.
  const rawAmount = version === 1 ? (entry.maxAmountRequired ?? entry.amount) : (entry.amount ?? entry.maxAmountRequired);
  const amount = typeof rawAmount === 'number' && Number.isSafeInteger(rawAmount) && rawAmount >= 0 ? String(rawAmount) : rawAmount;
  if (typeof amount !== 'string' || !INTEGER.test(amount)) return `amount ${JSON.stringify(rawAmount)} is not a base-10 integer string`;
  const asset = text(entry.asset, 128);
  if (!asset) return 'asset is missing';
  const payment: AcceptedPayment = { scheme: scheme as Scheme, network, asset, amount };
  const payTo = text(entry.payTo, 128);
  if (payTo) payment.payTo = payTo;
  if (typeof entry.maxTimeoutSeconds === 'number' && Number.isInteger(entry.maxTimeoutSeconds) && entry.maxTimeoutSeconds > 0) {
    payment.maxTimeoutSeconds = Math.min(entry.maxTimeoutSeconds, 2_147_483_647);
  }
  if (isObject(entry.extra)) payment.extra = entry.extra;
  return payment;
}

function declaredMethod(bazaar: JsonObject | undefined, firstAccept: JsonObject | undefined): string | undefined {
  const info = isObject(bazaar?.info) ? bazaar.info : undefined;
  const input = isObject(info?.input) ? info.input : undefined;
  const v1Input = isObject(firstAccept?.outputSchema) && isObject(firstAccept.outputSchema.input) ? firstAccept.outputSchema.input : undefined;
  for (const candidate of [input?.method, v1Input?.method]) {
    const method = httpMethod(candidate);
    if (method) return method;
  }
  return undefined;
}

/** The listing's payment of an accepted option: the option without its scheme parameters (`extra`). */
export function paymentOf(option: AcceptedPayment): Payment {
  const { extra: _extra, ...payment } = option;
  return payment;
}

/** What must agree between an announced and a probed challenge: the set of payment options. */
export function requirementKey(payment: Payment): string {
  return [payment.scheme, payment.network, payment.asset.toLowerCase(), payment.amount, (payment.payTo ?? '').toLowerCase()].join('|');
}

/** Undefined when the sets agree, else what differs (for the status record). */
export function requirementsDifference(announced: Payment[], probed: Payment[]): string | undefined {
  const want = new Set(announced.map(requirementKey));
  const got = new Set(probed.map(requirementKey));
  const missing = [...want].filter((k) => !got.has(k));
  const extra = [...got].filter((k) => !want.has(k));
  if (missing.length === 0 && extra.length === 0) return undefined;
  const parts: string[] = [];
  if (missing.length) parts.push(`announced but not served: ${missing.join(', ')}`);
  if (extra.length) parts.push(`served but not announced: ${extra.join(', ')}`);
  return `${parts.join('; ')} (scheme|network|asset|amount|payTo)`;
}
