/**
 * The x402 wire shapes (v2, and v1 where sellers' buyers still use it) that the facilitator answers
 * in and the seller SDK speaks, written out here so that neither has a runtime dependency on
 * @x402/core. Header names and encodings are the ones @x402/core and @x402/fetch use: base64 of
 * UTF-8 JSON.
 */

export const HEADERS = {
  /** v2: the challenge on a 402. */
  paymentRequired: 'PAYMENT-REQUIRED',
  /** v2: the buyer's signed payment. */
  paymentSignature: 'PAYMENT-SIGNATURE',
  /** v1 (and the MCP transport's "X-Payment"): the buyer's signed payment. */
  xPayment: 'X-PAYMENT',
  /** v2: the settlement receipt on the paid response. */
  paymentResponse: 'PAYMENT-RESPONSE',
  /** v1: the settlement receipt on the paid response. */
  xPaymentResponse: 'X-PAYMENT-RESPONSE',
} as const;

import type { Describe } from '../shapes/listing.js';

/** Seller-declared metadata, matched by search and carried with every 402: the listing's describe block. */
export type { Describe };

export interface PaymentRequirements {
  scheme: string;
  /** CAIP-2 (`eip155:84532`). */
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface ResourceInfo {
  url: string;
  description?: string;
  mimeType?: string;
}

export interface PaymentRequired {
  x402Version: 2;
  error?: string;
  resource: ResourceInfo;
  accepts: PaymentRequirements[];
  extensions?: Record<string, unknown>;
  /** This service's addition (the listing's describe block); x402 clients ignore unknown members. */
  describe?: Describe;
}

export interface PaymentRequirementsV1 {
  scheme: string;
  /** x402 v1 network name (`base-sepolia`), or CAIP-2 when there is no v1 name. */
  network: string;
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  outputSchema?: Record<string, unknown>;
  payTo: string;
  maxTimeoutSeconds: number;
  asset: string;
  extra?: Record<string, unknown>;
}

export interface PaymentRequiredV1 {
  x402Version: 1;
  error: string;
  accepts: PaymentRequirementsV1[];
  describe?: Describe;
}

export interface PaymentPayload {
  x402Version: number;
  resource?: ResourceInfo;
  /** v2: the requirements the buyer chose. */
  accepted?: PaymentRequirements;
  /** v1: scheme and network at the top level. */
  scheme?: string;
  network?: string;
  payload: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

export interface VerifyResponse {
  isValid: boolean;
  invalidReason?: string;
  invalidMessage?: string;
  payer?: string;
}

export interface SettleResponse {
  success: boolean;
  errorReason?: string;
  errorMessage?: string;
  payer?: string;
  transaction: string;
  network: string;
  /** Amount moved, in the asset's smallest unit (the actual amount for `upto`). */
  amount?: string;
}

/**
 * The facilitator-to-seller sidechannel of the Bazaar extension: the `EXTENSION-RESPONSES` header of
 * a /verify or /settle answer, base64 JSON keyed by extension name. Its `bazaar` member says what
 * became of the discovery metadata (x402 specs/extensions/bazaar.md; docs/facilitator.md).
 */
export const EXTENSION_RESPONSES_HEADER = 'EXTENSION-RESPONSES';

export interface BazaarOutcome {
  /** `success`: cataloged; `processing`: being cataloged asynchronously; `rejected`: not cataloged. */
  status: 'success' | 'processing' | 'rejected';
  rejectedReason?: string;
}

export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/** Undefined for anything that is not base64 of a JSON object. */
export function decodeBase64Json<T = Record<string, unknown>>(value: string): T | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value.trim())) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value.trim(), 'base64').toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as T) : undefined;
  } catch {
    return undefined;
  }
}
