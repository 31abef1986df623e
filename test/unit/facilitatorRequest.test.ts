import assert from 'node:assert/strict';
import { InvalidInput } from '../../src/core/errors.js';
import { parseAmount, type PaymentRequest } from '../../src/facilitator/payment.js';
import { wireReason } from '../../src/facilitator/paymentSchemes.js';
import { Reason, Rejection } from '../../src/facilitator/reasons.js';
import { normalizeRequest, parseFacilitatorRequest, parseSettleRequest, readFacilitatorRequest } from '../../src/facilitator/request.js';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const NETWORKS = ['eip155:84532'];
const requirementsV2 = { scheme: 'exact', network: 'eip155:84532', asset: USDC, amount: '1000', payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } };
const payload = { signature: '0x', authorization: {} };
const v2Body = (pr: Record<string, unknown> = {}, accepted: Record<string, unknown> = {}) => {
  const req = { ...requirementsV2, ...pr };
  return { x402Version: 2, paymentPayload: { x402Version: 2, accepted: { ...req, ...accepted }, payload }, paymentRequirements: req };
};
const v1Body = (pr: Record<string, unknown> = {}) => ({
  x402Version: 1,
  paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload },
  paymentRequirements: { scheme: 'exact', network: 'base-sepolia', maxAmountRequired: '2500', asset: USDC, payTo: PAY_TO, resource: 'https://a.example/x', ...pr },
});
const normalized = (body: unknown) => normalizeRequest(readFacilitatorRequest(body), NETWORKS);
const reasonOf = (body: unknown) => {
  const result = normalized(body);
  return result instanceof Rejection ? result.reason : 'accepted';
};

describe('unit: facilitator requests', () => {
  it('a body not shaped like a facilitator request is a 400 invalid_request naming each missing part', () => {
    const refused = (body: unknown) => {
      try {
        readFacilitatorRequest(body);
      } catch (err) {
        if (err instanceof InvalidInput && err.code === 'invalid_request') return err.fieldErrors.map((e) => e.path);
        throw err;
      }
      return assert.fail('expected invalid_request');
    };
    assert.deepEqual(refused([]), ['']);
    assert.deepEqual(refused({}), ['paymentPayload', 'paymentRequirements', 'x402Version']);
    assert.deepEqual(refused({ x402Version: 1.5, paymentPayload: {}, paymentRequirements: {} }), ['x402Version']);
    assert.equal(readFacilitatorRequest({ paymentPayload: { x402Version: 2 }, paymentRequirements: {} }).x402Version, 2, 'the version may come from the payload');
  });

  it('v2: the requirements typed (amount as an exact bigint), the payload kept for the scheme', () => {
    const request = normalized(v2Body({ amount: '123456789012345678901234567890' })) as PaymentRequest;
    assert.equal(request.x402Version, 2);
    assert.equal(request.requirements.amount, 123456789012345678901234567890n);
    assert.equal(request.requirements.network, 'eip155:84532');
    assert.deepEqual(request.requirements.extra, { name: 'USDC', version: '2' });
    assert.equal(request.schemePayload, v2Body().paymentPayload.payload);
  });

  it('v1: maxAmountRequired is the amount; the legacy network is settled as CAIP-2 and echoed as written', () => {
    const request = normalized(v1Body()) as PaymentRequest;
    assert.equal(request.requirements.amount, 2500n);
    assert.equal(request.requirements.network, 'eip155:84532');
    assert.equal(request.wireNetwork, 'base-sepolia');
  });

  it('refuses, with x402 reasons, what is well-shaped but wrong', () => {
    assert.equal(reasonOf({ ...v2Body(), x402Version: 3 }), Reason.invalidX402Version);
    assert.equal(reasonOf({ ...v2Body(), paymentPayload: { ...v2Body().paymentPayload, x402Version: 1 } }), Reason.invalidX402Version);
    assert.equal(reasonOf(v2Body({ scheme: 'stream' })), Reason.invalidScheme);
    assert.equal(reasonOf({ ...v1Body({ scheme: 'upto' }), paymentPayload: { ...v1Body().paymentPayload, scheme: 'upto' } }), Reason.invalidScheme, 'upto is v2 only');
    assert.equal(reasonOf(v2Body({}, { scheme: 'upto' })), Reason.schemeMismatch);
    assert.equal(reasonOf(v2Body({ network: 'eip155:8453' })), Reason.invalidNetwork, 'mainnet is not settled here');
    assert.equal(reasonOf(v2Body({}, { network: 'eip155:1' })), Reason.networkMismatch);
    assert.equal(reasonOf(v2Body({ amount: '1.5' })), Reason.invalidPaymentRequirements);
    assert.equal(reasonOf(v2Body({ asset: 'USDC' })), Reason.invalidPaymentRequirements);
    assert.equal(reasonOf(v2Body({ payTo: '0x123' })), Reason.invalidPaymentRequirements);
    assert.equal(reasonOf({ ...v2Body(), paymentPayload: { x402Version: 2, accepted: requirementsV2, payload: 'sig' } }), Reason.invalidPayload);
    assert.equal(reasonOf({ ...v2Body(), paymentPayload: { x402Version: 2, payload } }), Reason.invalidPayload);
  });

  it('a payload network written the v1 way matches its CAIP-2 requirement', () => {
    assert.equal(reasonOf(v2Body({}, { network: 'base-sepolia' })), 'accepted');
  });

  it('amounts: non-negative integers only, strings of up to 78 digits or safe integers', () => {
    assert.equal(parseAmount('0'), 0n);
    assert.equal(parseAmount(5), 5n);
    assert.equal(parseAmount('9'.repeat(78)), BigInt('9'.repeat(78)));
    for (const bad of ['9'.repeat(79), '-1', '1e3', ' 1', '', 2 ** 53, -1, 1.5, null, '0x10']) assert.equal(parseAmount(bad), undefined, String(bad));
  });
});

describe('unit: the one parse of a facilitator request', () => {
  const parsed = (body: unknown) => parseFacilitatorRequest(body, NETWORKS);

  it('keeps the wire strings a refusal echoes, even when the payment is refused', () => {
    const request = parsed(v1Body({ scheme: 'upto' }));
    assert.ok(request.payment instanceof Rejection);
    assert.equal(request.wireScheme, 'upto');
    assert.equal(request.wireNetwork, 'base-sepolia');
    const odd = parsed({ ...v2Body(), paymentRequirements: { ...requirementsV2, scheme: { toString: 1 }, network: 7 } });
    assert.deepEqual([odd.wireScheme, odd.wireNetwork], [undefined, ''], 'non-strings are never echoed (nor String()-ed)');
  });

  it('the claimed payer is read from either scheme\'s authorization, and only when it is an address', () => {
    const withPayload = (p: unknown) => ({ ...v2Body(), paymentPayload: { ...v2Body().paymentPayload, payload: p } });
    assert.equal(parsed(withPayload({ authorization: { from: PAY_TO } })).claimedPayer, PAY_TO);
    assert.equal(parsed(withPayload({ permit2Authorization: { from: USDC } })).claimedPayer, USDC);
    assert.equal(parsed(withPayload({ authorization: { from: 'me' } })).claimedPayer, undefined);
  });

  it('discovery metadata: the v2 bazaar extension, or a v1 outputSchema.input not opted out', () => {
    assert.equal(parsed(v2Body()).carriesDiscovery, false);
    assert.equal(parsed({ ...v2Body(), paymentPayload: { ...v2Body().paymentPayload, extensions: { bazaar: {} } } }).carriesDiscovery, true);
    assert.equal(parsed(v1Body({ outputSchema: { input: { method: 'GET' } } })).carriesDiscovery, true);
    assert.equal(parsed(v1Body({ outputSchema: { input: { discoverable: false } } })).carriesDiscovery, false);
  });

  it('/settle\'s identity: the payload hash ignores key order; the receipt is bound to the requirements', () => {
    const parsed = (body: unknown) => parseSettleRequest(body, NETWORKS);
    const body = v2Body();
    const reordered = { ...body, paymentPayload: Object.fromEntries(Object.entries(body.paymentPayload).reverse()) };
    assert.equal(parsed(reordered).payloadHash, parsed(body).payloadHash);
    const dearer = { ...body, paymentRequirements: { ...body.paymentRequirements, amount: '2000' } };
    assert.equal(parsed(dearer).payloadHash, parsed(body).payloadHash);
    assert.notEqual(parsed(dearer).binding, parsed(body).binding, 'the same payload with other requirements never gets the first receipt');
  });
});

describe('unit: reason codes on the wire', () => {
  it('v1 requests get the v1 names, v2 the names @x402/evm 2.x gives the same refusal per scheme', () => {
    assert.equal(wireReason(Reason.exactSignature, 1, 'exact'), 'invalid_exact_evm_payload_signature');
    assert.equal(wireReason(Reason.exactSignature, 2, 'exact'), 'invalid_exact_evm_signature');
    assert.equal(wireReason(Reason.insufficientFunds, 2, 'upto'), 'permit2_insufficient_balance');
    assert.equal(wireReason(Reason.insufficientFunds, 2, 'exact'), 'invalid_exact_evm_insufficient_balance');
  });

  it('codes x402 v1 has no name for fall back to its generic ones', () => {
    assert.equal(wireReason(Reason.schemeMismatch, 1, 'exact'), 'invalid_scheme');
    assert.equal(wireReason(Reason.exactZeroValue, 1, 'exact'), Reason.exactValue);
  });

  it('an unknown scheme or version, or a hostile scheme name, gets the plain code', () => {
    assert.equal(wireReason(Reason.exactSignature, 2, 'stream'), Reason.exactSignature);
    assert.equal(wireReason(Reason.exactSignature, 2, '__proto__'), Reason.exactSignature);
    assert.equal(wireReason(Reason.selfPayment, 2, 'exact'), 'invalid_self_payment');
    assert.equal(wireReason(Reason.exactSignature, '2', 'exact'), 'invalid_exact_evm_payload_signature');
  });
});
