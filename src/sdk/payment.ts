/**
 * One paid request's payment, whatever the transport (HTTP header or MCP `_meta`): find which of
 * the seller's requirements the buyer paid against, verify it with the service, then settle it.
 * The seller's own requirements are what is sent to the facilitator, never the buyer's copy.
 */
import type { Payment, Scheme } from '../shapes/listing.js';
import { v1NetworkName } from './price.js';
import type { ServiceClient } from './serviceClient.js';
import {
  decodeBase64Json,
  type Describe,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequiredV1,
  type PaymentRequirements,
  type PaymentRequirementsV1,
  type SettleResponse,
} from '../x402/wire.js';

export interface PaidResource {
  url: string;
  description: string;
  mimeType: string;
  accepts: PaymentRequirements[];
  describe?: Describe;
  /** v2 `extensions` (the bazaar discovery extension). */
  extensions?: Record<string, unknown>;
  /** v1 `outputSchema` (v1 bazaar: input/output hints). */
  outputSchemaV1?: Record<string, unknown>;
}

export type PaymentOutcome =
  | { status: 'settled'; version: 1 | 2; settlement: SettleResponse; requirements: PaymentRequirements }
  | Rejection;

export function toV1Requirements(resource: PaidResource, r: PaymentRequirements): PaymentRequirementsV1 {
  return {
    scheme: r.scheme,
    network: v1NetworkName(r.network),
    maxAmountRequired: r.amount,
    resource: resource.url,
    description: resource.description,
    mimeType: resource.mimeType,
    ...(resource.outputSchemaV1 ? { outputSchema: resource.outputSchemaV1 } : {}),
    payTo: r.payTo,
    maxTimeoutSeconds: r.maxTimeoutSeconds,
    asset: r.asset,
    extra: r.extra,
  };
}

/** The listing's payment block (shapes/listing.ts) for the seller's requirements, as the catalog lists it. */
export function listingPayment(r: PaymentRequirements, pricing?: Payment['pricing']): Payment {
  return {
    // buildRequirements only makes exact or upto requirements.
    scheme: r.scheme as Scheme,
    network: r.network,
    asset: r.asset,
    amount: r.amount,
    payTo: r.payTo,
    maxTimeoutSeconds: r.maxTimeoutSeconds,
    ...(pricing ? { pricing } : {}),
  };
}

export function paymentRequiredV2(resource: PaidResource, error?: string): PaymentRequired {
  return {
    x402Version: 2,
    ...(error ? { error } : {}),
    resource: { url: resource.url, description: resource.description, mimeType: resource.mimeType },
    accepts: resource.accepts,
    ...(resource.extensions ? { extensions: resource.extensions } : {}),
    ...(resource.describe ? { describe: resource.describe } : {}),
  };
}

export function paymentRequiredV1(resource: PaidResource, error: string): PaymentRequiredV1 {
  return {
    x402Version: 1,
    error,
    accepts: resource.accepts.map((r) => toV1Requirements(resource, r)),
    ...(resource.describe ? { describe: resource.describe } : {}),
  };
}

/** A payment from a header value (base64 JSON) or an already-parsed `_meta` object. */
export function parsePaymentPayload(value: unknown): PaymentPayload | undefined {
  const candidate = typeof value === 'string' ? decodeBase64Json<PaymentPayload>(value) : value;
  if (typeof candidate !== 'object' || candidate === null) return undefined;
  const payload = candidate as PaymentPayload;
  if (payload.x402Version !== 1 && payload.x402Version !== 2) return undefined;
  if (typeof payload.payload !== 'object' || payload.payload === null) return undefined;
  return payload;
}

const same = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();

function matchRequirements(payload: PaymentPayload, accepts: PaymentRequirements[]): PaymentRequirements | undefined {
  if (payload.x402Version === 2) {
    const chosen = payload.accepted;
    if (!chosen) return undefined;
    return accepts.find(
      (r) => r.scheme === chosen.scheme && r.network === chosen.network && String(r.amount) === String(chosen.amount) && same(r.asset, chosen.asset) && same(r.payTo, chosen.payTo),
    );
  }
  return accepts.find((r) => r.scheme === payload.scheme && (payload.network === r.network || payload.network === v1NetworkName(r.network)));
}

export interface VerifiedPayment {
  version: 1 | 2;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
  /** What the facilitator is sent: the seller's requirements in the payload's protocol version. */
  sent: PaymentRequirements | PaymentRequirementsV1;
  payer?: string;
}

export type Rejection = { status: 'rejected'; reason: string; message?: string };

/** Throws ServiceCallError only when the service could not be reached. */
export async function verifyPayment(client: ServiceClient, resource: PaidResource, payload: PaymentPayload): Promise<VerifiedPayment | Rejection> {
  const requirements = matchRequirements(payload, resource.accepts);
  if (!requirements) {
    return { status: 'rejected', reason: 'invalid_payment_requirements', message: 'the payment does not match any accepted payment option' };
  }
  const sent = payload.x402Version === 1 ? toV1Requirements(resource, requirements) : requirements;
  const verification = await client.verify(payload, sent);
  if (!verification.isValid) {
    return { status: 'rejected', reason: verification.invalidReason ?? 'invalid_payment', ...(verification.invalidMessage ? { message: verification.invalidMessage } : {}) };
  }
  return { version: payload.x402Version === 1 ? 1 : 2, payload, requirements, sent, ...(verification.payer ? { payer: verification.payer } : {}) };
}

export async function settlePayment(client: ServiceClient, verified: VerifiedPayment): Promise<PaymentOutcome> {
  const settlement = await client.settle(verified.payload, verified.sent);
  if (!settlement.success) {
    return { status: 'rejected', reason: settlement.errorReason ?? 'settlement_failed', ...(settlement.errorMessage ? { message: settlement.errorMessage } : {}) };
  }
  return { status: 'settled', version: verified.version, settlement, requirements: verified.requirements };
}

/** Verifies then settles; throws ServiceCallError only when the service could not be reached. */
export async function collectPayment(client: ServiceClient, resource: PaidResource, payload: PaymentPayload): Promise<PaymentOutcome> {
  const verified = await verifyPayment(client, resource, payload);
  if ('status' in verified) return verified;
  return settlePayment(client, verified);
}
