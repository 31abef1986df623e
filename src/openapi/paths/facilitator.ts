/** x402 facilitator operations (docs/facilitator.md): /supported, /verify, /settle. */
import { BODY_PROBLEMS, json, jsonBody, mergeProblems, operation, ref, type OpenApiObject } from '../builders.js';

const REQUIREMENTS = {
  scheme: 'exact',
  network: 'eip155:84532',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  amount: '1000',
  payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  maxTimeoutSeconds: 60,
  extra: { name: 'USDC', version: '2' },
};

/** Well shaped, but signed by nobody: a rejected payment (200, not a 400). */
const UNSIGNED_PAYMENT = {
  x402Version: 2,
  paymentPayload: {
    x402Version: 2,
    resource: { url: 'https://weather.example.com/v1/forecast' },
    accepted: REQUIREMENTS,
    payload: {
      signature: `0x${'11'.repeat(65)}`,
      authorization: {
        from: '0x1111111111111111111111111111111111111111',
        to: REQUIREMENTS.payTo,
        value: '1000',
        validAfter: '0',
        validBefore: '9999999999',
        nonce: `0x${'22'.repeat(32)}`,
      },
    },
  },
  paymentRequirements: REQUIREMENTS,
};

/** The Bazaar sidechannel (docs/facilitator.md "What the seller is told"). */
const CATALOG_OUTCOME =
  ' When the payment carries discovery metadata, the EXTENSION-RESPONSES header (base64 JSON {"bazaar": {"status": "success"|"processing"|"rejected", "rejectedReason"?}}) says what was cataloged.';

const PROBLEMS = mergeProblems(BODY_PROBLEMS, { 400: ['invalid_request'], 429: ['rate_limited'], 503: ['facilitator_unavailable'] });

/**
 * The three facilitator operations under a base path: the root, and `/x402` (the same handlers,
 * for x402 clients given `{service}/x402` as their facilitator URL; ./bazaar.ts).
 */
export function facilitatorPathsAt(base: string, idPrefix = ''): Record<string, OpenApiObject> {
  const id = (name: string) => (idPrefix ? `${idPrefix}${name[0]!.toUpperCase()}${name.slice(1)}` : name);
  return {
    [`${base}/supported`]: {
      get: operation(id('supported'), {
        tags: ['facilitator'],
        summary: 'Payment kinds this facilitator verifies and settles',
        responses: { 200: json('Kinds, extensions and signers (x402 wire shape).', ref('SupportedResponse')) },
        examples: [{ summary: 'Supported kinds', status: 200 }],
      }),
    },
    [`${base}/verify`]: {
      post: operation(id('verifyPayment'), {
        tags: ['facilitator'],
        summary: 'Check a payment without moving funds',
        requestBody: jsonBody('x402 facilitator request.', ref('FacilitatorRequest')),
        responses: { 200: json(`isValid, or invalidReason (an x402 code) for a rejected payment.${CATALOG_OUTCOME}`, ref('VerifyResponse')) },
        problems: PROBLEMS,
        examples: [
          { summary: 'A payment with a bad signature is rejected (200)', status: 200, body: UNSIGNED_PAYMENT },
          { summary: 'Not a facilitator request', status: 400, body: { hello: 'world' } },
        ],
      }),
    },
    [`${base}/settle`]: {
      post: operation(id('settlePayment'), {
        tags: ['facilitator'],
        summary: 'Send the payment\'s transfer on chain and return its transaction (idempotent by payment payload)',
        requestBody: jsonBody('x402 facilitator request; for upto, paymentRequirements.amount is the actual amount.', ref('FacilitatorRequest')),
        responses: { 200: json(`success with transaction and amount, or errorReason (settlement_pending names the transaction: retry).${CATALOG_OUTCOME}`, ref('SettleResponse')) },
        problems: PROBLEMS,
        examples: [
          { summary: 'A payment with a bad signature is not settled (200)', status: 200, body: UNSIGNED_PAYMENT },
          { summary: 'Not a facilitator request', status: 400, body: { paymentPayload: [] } },
        ],
      }),
    },
  };
}

export const facilitatorPaths = facilitatorPathsAt('');
