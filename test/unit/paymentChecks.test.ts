import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { checkExactPayment } from '../../src/facilitator/exactScheme.js';
import { Reason, Rejection } from '../../src/facilitator/reasons.js';
import type { PaymentRequest } from '../../src/facilitator/payment.js';
import { normalizeRequest, readFacilitatorRequest } from '../../src/facilitator/request.js';
import { checkUptoPayment } from '../../src/facilitator/uptoScheme.js';
import { exactRequest, FACILITATOR_ADDRESS, newWallet, requirements, uptoRequest, type ExactOptions, type UptoOptions } from '../support/payments.js';

/** The facilitator's clock, in seconds: the payloads below are signed relative to it. */
const NOW = BigInt(Math.floor(Date.now() / 1000));
const payer = newWallet();
const seller = newWallet();
const stranger = newWallet();

const parse = (body: unknown) => normalizeRequest(readFacilitatorRequest(body), ['eip155:84532']) as PaymentRequest;
async function exact(options: ExactOptions = {}, overrides: Parameters<typeof requirements>[1] = {}) {
  return checkExactPayment(parse(await exactRequest(payer, requirements(seller.address, overrides), options)), NOW);
}
async function upto(options: UptoOptions = {}, mode: 'verify' | 'settle' = 'verify', amount = '1000') {
  const body = await uptoRequest(payer, requirements(seller.address, { amount: '1000' }), options);
  const request = parse(body);
  request.requirements.amount = BigInt(amount);
  return checkUptoPayment(request, NOW, FACILITATOR_ADDRESS, mode);
}
const refusal = (result: ReturnType<typeof checkExactPayment>) => {
  assert.ok(result instanceof Rejection, 'expected a rejection');
  return { reason: result.reason, payer: result.payer };
};

describe('unit: exact payments (EIP-3009)', () => {
  it('accepts a payment signed by its payer: the transfer to make, addresses lower-case, nonce space per token and payer', async () => {
    const result = await exact();
    assert.ok(!(result instanceof Rejection), result instanceof Rejection ? result.message : '');
    assert.equal(result.payer, getAddress(payer.address));
    assert.equal(result.transfer.amount, 1000n);
    assert.equal(result.transfer.to, seller.address.toLowerCase());
    assert.equal(result.transfer.nonceSpace, `eip3009:0x036cbd53842c5426634e7929541ec2318f3dcf7e:${payer.address.toLowerCase()}`);
  });

  it('a signature by anyone else is refused and names no payer (it proves nothing about the wallet)', async () => {
    assert.deepEqual(refusal(await exact({ signer: stranger })), { reason: Reason.exactSignature, payer: undefined });
    assert.deepEqual(refusal(await exact({ chainId: 8453 })), { reason: Reason.exactSignature, payer: undefined }, 'signed for another chain');
  });

  it('a signed payment refused for its terms names the payer (it counts toward the rejection rate)', async () => {
    const signed = getAddress(payer.address);
    assert.deepEqual(refusal(await exact({ to: stranger.address })), { reason: Reason.exactRecipientMismatch, payer: signed });
    assert.deepEqual(refusal(await exact({ value: '999' })), { reason: Reason.exactValue, payer: signed });
    assert.deepEqual(refusal(await exact({ validAfter: String(NOW + 60n) })), { reason: Reason.exactValidAfter, payer: signed });
  });

  it('must stay valid a few seconds past verification, long enough to settle', async () => {
    assert.equal(refusal(await exact({ validBefore: String(NOW + 5n) })).reason, Reason.exactValidBefore);
    assert.ok(!((await exact({ validBefore: String(NOW + 6n) })) instanceof Rejection));
  });

  it('a zero-value payment and a payment to oneself are evidence of nothing: refused without payer', async () => {
    assert.deepEqual(refusal(await exact({ value: '0' }, { amount: '0' })), { reason: Reason.exactZeroValue, payer: undefined });
    const self = await exactRequest(payer, requirements(payer.address));
    assert.deepEqual(refusal(checkExactPayment(parse(self), NOW)), { reason: Reason.selfPayment, payer: undefined });
  });

  it('paying more than asked is accepted, for the amount signed', async () => {
    const result = await exact({ value: '5000' });
    assert.ok(!(result instanceof Rejection));
    assert.equal(result.transfer.amount, 5000n);
  });

  it('refuses a malformed payload or requirements without the token\'s EIP-712 domain', async () => {
    const body = await exactRequest(payer, requirements(seller.address));
    const request = parse(body);
    assert.equal(refusal(checkExactPayment({ ...request, schemePayload: { ...request.schemePayload, signature: '0x1234' } }, NOW)).reason, Reason.invalidPayload);
    assert.equal(refusal(checkExactPayment({ ...request, schemePayload: { signature: request.schemePayload.signature } }, NOW)).reason, Reason.invalidPayload);
    const noDomain = { ...request, requirements: { ...request.requirements, extra: {} } };
    assert.equal(refusal(checkExactPayment(noDomain, NOW)).reason, Reason.exactMissingDomain);
    const badNonce = { ...request, schemePayload: { ...request.schemePayload, authorization: { ...(request.schemePayload.authorization as object), nonce: '0x01' } } };
    assert.equal(refusal(checkExactPayment(badNonce, NOW)).reason, Reason.invalidPayload);
  });
});

describe('unit: upto payments (Permit2 witness)', () => {
  it('verify: a ceiling at or above the price is accepted; the transfer is the requirements amount, in the payer\'s Permit2 nonce space', async () => {
    const result = await upto({ ceiling: '5000' });
    assert.ok(!(result instanceof Rejection), result instanceof Rejection ? result.message : '');
    assert.equal(result.transfer.amount, 1000n);
    assert.equal(result.transfer.nonceSpace, `permit2:${payer.address.toLowerCase()}`);
  });

  it('settle charges the actual amount, never above the ceiling (its own reason at settle, another at verify)', async () => {
    const settled = await upto({ ceiling: '5000' }, 'settle', '4200');
    assert.ok(!(settled instanceof Rejection));
    assert.equal(settled.transfer.amount, 4200n);
    assert.equal(refusal(await upto({ ceiling: '5000' }, 'settle', '5001')).reason, Reason.uptoSettlementExceedsAmount);
    assert.equal(refusal(await upto({ ceiling: '999' }, 'verify')).reason, Reason.permit2AmountMismatch);
  });

  it('only the x402 upto proxy may spend it, only this facilitator settle it, only to payTo, only the required token', async () => {
    assert.equal(refusal(await upto({ spender: stranger.address })).reason, Reason.permit2Spender);
    assert.equal(refusal(await upto({ facilitator: stranger.address })).reason, Reason.uptoFacilitatorMismatch);
    assert.equal(refusal(await upto({ to: stranger.address })).reason, Reason.permit2RecipientMismatch);
    const body = await uptoRequest(payer, requirements(seller.address));
    const request = parse(body);
    const otherToken = { ...request, requirements: { ...request.requirements, asset: '0x1111111111111111111111111111111111111111' } };
    assert.equal(refusal(checkUptoPayment(otherToken, NOW, FACILITATOR_ADDRESS, 'verify')).reason, Reason.permit2TokenMismatch);
  });

  it('time bounds: an expiring deadline and a permit not yet valid are refused with the payer named', async () => {
    const signed = getAddress(payer.address);
    assert.deepEqual(refusal(await upto({ deadline: String(NOW + 5n) })), { reason: Reason.permit2DeadlineExpired, payer: signed });
    assert.deepEqual(refusal(await upto({ validAfter: String(NOW + 60n) })), { reason: Reason.permit2NotYetValid, payer: signed });
  });

  it('a zero ceiling authorizes nothing; a tampered permit fails its signature', async () => {
    assert.deepEqual(refusal(await upto({ ceiling: '0' }, 'verify', '0')), { reason: Reason.permit2InvalidAmount, payer: undefined });
    const body = await uptoRequest(payer, requirements(seller.address), { ceiling: '1000' });
    const request = parse(body);
    const permit = request.schemePayload.permit2Authorization as { permitted: { amount: string } };
    permit.permitted.amount = '1000000';
    assert.deepEqual(refusal(checkUptoPayment(request, NOW, FACILITATOR_ADDRESS, 'verify')), { reason: Reason.permit2Signature, payer: undefined });
  });
});
