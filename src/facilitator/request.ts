/**
 * Reads a /verify or /settle body (x402 v2, or v1), once, at the edge: into a FacilitatorRequest
 * that holds everything the service needs (the normalized payment its scheme checks, or why there
 * is none; the wire strings a refusal echoes; the claimed payer; the listing it is about; the
 * settlement's identity). Nothing after this reads the body again.
 * Only a body that is not shaped like a facilitator request at all is a 400; anything wrong inside
 * a well-shaped request is a payment rejection with an x402 reason (200, isValid: false).
 */
import { isObject, type JsonObject } from '../core/json.js';
import { toCaip2Network } from '../x402/networks.js';
import { InvalidInput, type FieldError } from '../core/errors.js';
import { payloadHash, requestBinding } from '../store/redis/settlementStore.js';
import { Reason, reject, type Rejection } from './reasons.js';
import { isAddress, parseAmount, type PaymentRequest, type RawFacilitatorRequest, type Requirements } from './payment.js';
import { schemeFor } from './paymentSchemes.js';
import { sightingOf, type TrafficSighting } from './trafficSighting.js';

/** A /verify or /settle request as the service takes it. */
export interface FacilitatorRequest {
  /** As the client sent it: a refusal's wire name depends on it. */
  x402Version: number;
  /** `paymentRequirements.scheme` as written (undefined when not a string): a refusal's wire name depends on it. */
  wireScheme: string | undefined;
  /** `paymentRequirements.network` as written ('' when not a string), echoed in settle responses. */
  wireNetwork: string;
  /** The normalized payment of a supported version, scheme and network, or the refusal that says why not. */
  payment: PaymentRequest | Rejection;
  /** The payer the payload names, unchecked: x402 reports it on refusals when it can. */
  claimedPayer: string | undefined;
  /** The request carries discovery metadata (the v2 bazaar extension, or v1 `outputSchema.input`): its answer tells the seller what the catalog did. */
  carriesDiscovery: boolean;
  /** The listing the request is about, when it names a resource the catalog can key. */
  sighting: TrafficSighting | undefined;
}

/** A /settle request: also what it is idempotent by and what its receipt is bound to. */
export interface SettleRequest extends FacilitatorRequest {
  /** sha256 of the canonical payment payload: one settlement per payload. */
  payloadHash: string;
  /** sha256 of the canonical version and requirements: the receipt answers only these. */
  binding: string;
}

/** The one parse of a /verify body; throws a 400 `invalid_request` unless it has the outer shape. */
export function parseFacilitatorRequest(body: unknown, supportedNetworks: readonly string[]): FacilitatorRequest {
  return requestOf(readFacilitatorRequest(body), supportedNetworks);
}

/**
 * The one parse of a /settle body: a verify's, and the settlement's identity (two canonical-JSON
 * hashes, about 70 µs under load: /verify does not pay for them).
 */
export function parseSettleRequest(body: unknown, supportedNetworks: readonly string[]): SettleRequest {
  const raw = readFacilitatorRequest(body);
  return {
    ...requestOf(raw, supportedNetworks),
    payloadHash: payloadHash(raw.paymentPayload),
    binding: requestBinding(raw.x402Version, raw.paymentRequirements),
  };
}

function requestOf(raw: RawFacilitatorRequest, supportedNetworks: readonly string[]): FacilitatorRequest {
  const { scheme, network } = raw.paymentRequirements;
  return {
    x402Version: raw.x402Version,
    wireScheme: typeof scheme === 'string' ? scheme : undefined,
    wireNetwork: typeof network === 'string' ? network : '',
    payment: normalizeRequest(raw, supportedNetworks),
    claimedPayer: claimedPayer(raw),
    carriesDiscovery: carriesDiscovery(raw),
    sighting: sightingOf(raw),
  };
}

/** Whether the request carries discovery metadata: the v2 bazaar extension, or v1 `outputSchema.input`. */
function carriesDiscovery(raw: RawFacilitatorRequest): boolean {
  const { paymentPayload: pp, paymentRequirements: pr } = raw;
  if (raw.x402Version === 2) return isObject(pp.extensions) && isObject(pp.extensions.bazaar);
  return isObject(pr.outputSchema) && isObject(pr.outputSchema.input) && pr.outputSchema.input.discoverable !== false;
}

/** Best-effort payer address of a payload, whatever its checks will say (the signer of either EVM scheme's authorization). */
function claimedPayer(raw: RawFacilitatorRequest): string | undefined {
  const payload = raw.paymentPayload.payload;
  if (!isObject(payload)) return undefined;
  const from = isObject(payload.authorization) ? payload.authorization.from : isObject(payload.permit2Authorization) ? payload.permit2Authorization.from : undefined;
  return isAddress(from) ? from : undefined;
}

/** Throws a 400 `invalid_request` unless the body has the facilitator request's outer shape. */
export function readFacilitatorRequest(body: unknown): RawFacilitatorRequest {
  const errors: FieldError[] = [];
  if (!isObject(body)) {
    throw new InvalidInput('invalid_request', 'The body must be a JSON object with paymentPayload and paymentRequirements.', [
      { path: '', message: 'must be an object' },
    ]);
  }
  if (!isObject(body.paymentPayload)) errors.push({ path: 'paymentPayload', message: 'must be an object' });
  if (!isObject(body.paymentRequirements)) errors.push({ path: 'paymentRequirements', message: 'must be an object' });
  const version = body.x402Version ?? (isObject(body.paymentPayload) ? body.paymentPayload.x402Version : undefined);
  if (typeof version !== 'number' || !Number.isInteger(version)) errors.push({ path: 'x402Version', message: 'must be an integer' });
  if (errors.length > 0) {
    throw new InvalidInput('invalid_request', 'The body is not an x402 facilitator request.', errors);
  }
  return {
    x402Version: version as number,
    paymentPayload: body.paymentPayload as JsonObject,
    paymentRequirements: body.paymentRequirements as JsonObject,
  };
}

/** Normalizes a shaped request; returns a Rejection when a field is missing, unsupported or inconsistent. */
export function normalizeRequest(raw: RawFacilitatorRequest, supportedNetworks: readonly string[]): PaymentRequest | Rejection {
  const { paymentPayload: pp, paymentRequirements: pr } = raw;
  if (raw.x402Version !== 1 && raw.x402Version !== 2) {
    return reject(Reason.invalidX402Version, `x402Version ${raw.x402Version} is not supported (1 or 2)`);
  }
  if (pp.x402Version !== undefined && pp.x402Version !== raw.x402Version) {
    return reject(Reason.invalidX402Version, 'paymentPayload.x402Version differs from the request x402Version');
  }
  const version = raw.x402Version;
  const accepted = version === 2 ? pp.accepted : pp;
  if (!isObject(accepted)) return reject(Reason.invalidPayload, 'paymentPayload.accepted must be an object');
  if (!isObject(pp.payload)) return reject(Reason.invalidPayload, 'paymentPayload.payload must be an object');

  const scheme = pr.scheme;
  if (typeof scheme !== 'string') return reject(Reason.invalidPaymentRequirements, 'paymentRequirements.scheme must be a string');
  const registered = schemeFor(scheme, version);
  if (!registered) return reject(Reason.invalidScheme, `scheme ${JSON.stringify(scheme)} is not supported for x402 v${version}`);
  if (accepted.scheme !== scheme) return reject(Reason.schemeMismatch, 'the payload scheme differs from the requirements scheme');

  const wireNetwork = pr.network;
  if (typeof wireNetwork !== 'string') return reject(Reason.invalidPaymentRequirements, 'paymentRequirements.network must be a string');
  const network = toCaip2Network(wireNetwork);
  if (!network || !supportedNetworks.includes(network)) {
    return reject(Reason.invalidNetwork, `network ${JSON.stringify(wireNetwork)} is not settled here (supported: ${supportedNetworks.join(', ')})`);
  }
  if (typeof accepted.network !== 'string' || toCaip2Network(accepted.network) !== network) {
    return reject(Reason.networkMismatch, 'the payload network differs from the requirements network');
  }

  const amount = parseAmount(version === 2 ? pr.amount : pr.maxAmountRequired);
  if (amount === undefined) {
    return reject(Reason.invalidPaymentRequirements, `paymentRequirements.${version === 2 ? 'amount' : 'maxAmountRequired'} must be an integer string`);
  }
  if (!isAddress(pr.asset)) return reject(Reason.invalidPaymentRequirements, 'paymentRequirements.asset must be a token address');
  if (!isAddress(pr.payTo)) return reject(Reason.invalidPaymentRequirements, 'paymentRequirements.payTo must be an address');
  const requirements: Requirements = {
    scheme,
    network,
    asset: pr.asset,
    payTo: pr.payTo,
    amount,
    extra: isObject(pr.extra) ? pr.extra : {},
  };
  if (typeof pr.maxTimeoutSeconds === 'number') requirements.maxTimeoutSeconds = pr.maxTimeoutSeconds;
  return { x402Version: version, wireNetwork, requirements, schemePayload: pp.payload, scheme: registered };
}
