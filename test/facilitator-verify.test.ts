import assert from 'node:assert/strict';
import request from 'supertest';
import { hashTypedData } from 'viem';
import { typedDataDigest } from '../src/facilitator/recoverSigner.js';
import { startHarness, type Harness } from './support/harness.js';
import { fundUptoBuyer } from './support/chainFunding.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC, uptoRequest, type RequirementsV2 } from './support/payments.js';

describe('facilitator: /supported and /verify', () => {
  let h: Harness;
  const payer = newWallet();
  const seller = newWallet();
  let req: RequirementsV2;

  before(async () => {
    h = await startHarness();
    // Its Permit2 approval too: the upto payments below are valid only with it.
    await fundUptoBuyer(payer, 1_000_000n);
    req = requirements(seller.address);
  });
  after(async () => h.close());

  const verify = async (body: unknown) => (await request(h.app).post('/verify').send(body as object).expect(200)).body;

  it('/supported lists exact and upto on the test network (v2), exact for v1, and the bazaar extension', async () => {
    const res = await request(h.app).get('/supported').expect(200);
    assert.deepEqual(res.body.extensions, ['bazaar']);
    const kinds = res.body.kinds.map((k: { x402Version: number; scheme: string; network: string }) => `${k.x402Version} ${k.scheme} ${k.network}`);
    assert.deepEqual(kinds, ['2 exact eip155:84532', '2 upto eip155:84532', '1 exact base-sepolia']);
    const upto = res.body.kinds.find((k: { scheme: string }) => k.scheme === 'upto');
    assert.equal(upto.extra.facilitatorAddress, h.config.facilitatorAddress);
    assert.deepEqual(res.body.signers, { 'eip155:*': [h.config.facilitatorAddress] });
  });

  it('accepts a well-signed exact payment and names the payer', async () => {
    const body = await verify(await exactRequest(payer, req));
    assert.deepEqual(body, { isValid: true, payer: payer.address });
  });

  it('accepts a well-signed upto payment whose ceiling covers the price', async () => {
    const body = await verify(await uptoRequest(payer, req, { ceiling: '5000' }));
    assert.deepEqual(body, { isValid: true, payer: payer.address });
  });

  const cases: Array<[string, () => Promise<unknown>, string]> = [
    ['bad signature', async () => exactRequest(payer, req, { signer: newWallet() }), 'invalid_exact_evm_signature'],
    ['signature for another chain', async () => exactRequest(payer, req, { chainId: 8453 }), 'invalid_exact_evm_signature'],
    ['wrong recipient', async () => exactRequest(payer, req, { to: newWallet().address }), 'invalid_exact_evm_recipient_mismatch'],
    ['amount too low', async () => exactRequest(payer, req, { value: '999' }), 'invalid_exact_evm_payload_authorization_value_mismatch'],
    ['expired', async () => exactRequest(payer, req, { validBefore: String(Math.floor(Date.now() / 1000) - 1) }), 'invalid_exact_evm_payload_authorization_valid_before'],
    ['not yet valid', async () => exactRequest(payer, req, { validAfter: String(Math.floor(Date.now() / 1000) + 3600) }), 'invalid_exact_evm_payload_authorization_valid_after'],
    ['insufficient balance', async () => exactRequest(newWallet(), req), 'invalid_exact_evm_insufficient_balance'],
    ['unsupported scheme', async () => {
      const body = await exactRequest(payer, req);
      const other = { ...req, scheme: 'batch' };
      return { ...body, paymentPayload: { ...body.paymentPayload, accepted: other }, paymentRequirements: other };
    }, 'invalid_scheme'],
    ['unsupported network', async () => {
      const other = { ...req, network: 'eip155:1' };
      const body = await exactRequest(payer, other);
      return body;
    }, 'invalid_network'],
    ['malformed payload (no signature)', async () => {
      const body = await exactRequest(payer, req);
      return { ...body, paymentPayload: { ...body.paymentPayload, payload: { authorization: body.paymentPayload.payload.authorization } } };
    }, 'invalid_payload'],
    ['malformed payload (non-numeric value)', async () => {
      const body = await exactRequest(payer, req);
      const authorization = { ...body.paymentPayload.payload.authorization, value: 'lots' };
      return { ...body, paymentPayload: { ...body.paymentPayload, payload: { ...body.paymentPayload.payload, authorization } } };
    }, 'invalid_payload'],
    ['upto: ceiling below the price', async () => uptoRequest(payer, req, { ceiling: '999' }), 'permit2_amount_mismatch'],
    ['upto: another facilitator', async () => uptoRequest(payer, req, { facilitator: newWallet().address }), 'upto_facilitator_mismatch'],
    ['upto: wrong recipient', async () => uptoRequest(payer, req, { to: newWallet().address }), 'invalid_permit2_recipient_mismatch'],
    ['upto: expired', async () => uptoRequest(payer, req, { deadline: '1000' }), 'permit2_deadline_expired'],
    ['upto: bad signature', async () => {
      const body = await uptoRequest(payer, req);
      const p = body.paymentPayload.payload;
      const forged = { ...p, permit2Authorization: { ...p.permit2Authorization, permitted: { ...p.permit2Authorization.permitted, amount: '99999' } } };
      return { ...body, paymentPayload: { ...body.paymentPayload, payload: forged } };
    }, 'invalid_permit2_signature'],
  ];
  for (const [name, build, reason] of cases) {
    it(`rejects: ${name} -> ${reason}`, async () => {
      const body = await verify(await build());
      assert.equal(body.isValid, false);
      assert.equal(body.invalidReason, reason);
      assert.equal(typeof body.invalidMessage, 'string');
    });
  }

  it('rejects a replayed nonce once the payment was settled', async () => {
    const body = await exactRequest(payer, req);
    const settled = await request(h.app).post('/settle').send(body).expect(200);
    assert.equal(settled.body.success, true);
    const again = await verify(body);
    assert.equal(again.invalidReason, 'invalid_exact_evm_nonce_already_used');
    // A new payload that reuses the nonce cannot settle either, and sends nothing: the answer names
    // the first payment's transaction, no second one.
    const reused = await exactRequest(payer, req, { nonce: body.paymentPayload.payload.authorization.nonce as `0x${string}`, value: '1001' });
    const res = await request(h.app).post('/settle').send(reused).expect(200);
    assert.equal(res.body.success, false);
    assert.ok([settled.body.transaction, ''].includes(res.body.transaction), JSON.stringify(res.body));
  });

  // The journal entry names the authorization it settles: another one under the same nonce is refused as such.
  it('a new payload reusing a settled nonce is refused at /settle with invalid_exact_evm_nonce_already_used', async () => {
    const body = await exactRequest(payer, req);
    assert.equal((await request(h.app).post('/settle').send(body).expect(200)).body.success, true);
    const reused = await exactRequest(payer, req, { nonce: body.paymentPayload.payload.authorization.nonce as `0x${string}`, value: '1001' });
    assert.equal((await request(h.app).post('/settle').send(reused).expect(200)).body.errorReason, 'invalid_exact_evm_nonce_already_used');
  });

  it('accepts the legacy v1 wire shape (base-sepolia, maxAmountRequired)', async () => {
    const v2 = await exactRequest(payer, req);
    const v1Requirements = {
      scheme: 'exact', network: 'base-sepolia', maxAmountRequired: req.amount, resource: 'http://seller.test/v1', description: 'v1 thing',
      mimeType: 'application/json', payTo: req.payTo, maxTimeoutSeconds: 60, asset: USDC, extra: req.extra,
    };
    const body = {
      x402Version: 1,
      paymentPayload: { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: v2.paymentPayload.payload },
      paymentRequirements: v1Requirements,
    };
    assert.deepEqual(await verify(body), { isValid: true, payer: payer.address });
    const settled = await request(h.app).post('/settle').send(body).expect(200);
    assert.equal(settled.body.success, true);
    assert.equal(settled.body.network, 'base-sepolia');
  });

  it('the cached-domain EIP-712 digest is the one viem computes', () => {
    const permit = {
      domain: { name: 'Permit2', chainId: 84532, verifyingContract: '0x000000000022d473030f116ddee9f6b43ac78ba3' },
      types: { TokenPermissions: [{ name: 'token', type: 'address' }, { name: 'amount', type: 'uint256' }], Permit: [{ name: 'permitted', type: 'TokenPermissions' }, { name: 'nonce', type: 'uint256' }] },
      primaryType: 'Permit',
      message: { permitted: { token: USDC.toLowerCase(), amount: 5n }, nonce: 9n },
    } as const;
    const transfer = {
      domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: USDC.toLowerCase() },
      types: { T: [{ name: 'from', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'T',
      message: { from: payer.address.toLowerCase(), value: 10n, nonce: `0x${'ab'.repeat(32)}` },
    } as const;
    for (const typedData of [permit, transfer, transfer, { ...transfer, domain: { ...transfer.domain, chainId: 1 } }]) {
      assert.equal(typedDataDigest(typedData as never), hashTypedData(typedData as never));
    }
  });

  it('odd field values are rejections, never a crash', async () => {
    const good = await exactRequest(payer, req);
    const auth = good.paymentPayload.payload.authorization;
    const variants: unknown[] = [
      { ...good, paymentPayload: { ...good.paymentPayload, payload: { ...good.paymentPayload.payload, authorization: 5 } } },
      { ...good, paymentPayload: { ...good.paymentPayload, payload: { ...good.paymentPayload.payload, authorization: { ...auth, nonce: 7, value: { x: 1 } } } } },
      { ...good, paymentPayload: { ...good.paymentPayload, payload: { ...good.paymentPayload.payload, authorization: { ...auth, value: '1'.repeat(80) } } } },
      { ...good, paymentPayload: { ...good.paymentPayload, payload: { ...good.paymentPayload.payload, signature: '0x' + 'ff'.repeat(65) } } },
      { ...good, paymentRequirements: { ...good.paymentRequirements, extra: 'x', payTo: 'nobody' } },
      { ...good, paymentRequirements: { ...good.paymentRequirements, amount: -5 } },
      { ...good, paymentPayload: { ...good.paymentPayload, accepted: null } },
      { ...good, x402Version: 7 },
    ];
    for (const body of variants) {
      const res = await verify(body);
      assert.equal(res.isValid, false, JSON.stringify(body).slice(0, 200));
      assert.equal(typeof res.invalidReason, 'string');
    }
  });

  // The addresses reach @x402/evm checksummed (store/evm/paymentKinds.ts), whatever case the payload used.
  it('addresses are compared case-insensitively, a wrong checksum included: it is the same 20 bytes', async () => {
    const good = await exactRequest(payer, req);
    const auth = good.paymentPayload.payload.authorization;
    const shouting = { ...auth, to: auth.to.toUpperCase().replace('0X', '0x'), from: auth.from.toLowerCase() };
    const res = await verify({ ...good, paymentPayload: { ...good.paymentPayload, payload: { ...good.paymentPayload.payload, authorization: shouting } } });
    assert.deepEqual(res, { isValid: true, payer: payer.address });
  });

  describe('malformed requests are 400 problem+json, not rejections', () => {
    for (const [name, body] of [
      ['an array', [1, 2]],
      ['no paymentPayload', { x402Version: 2, paymentRequirements: {} }],
      ['paymentRequirements is a string', { x402Version: 2, paymentPayload: {}, paymentRequirements: 'x' }],
      ['no x402Version anywhere', { paymentPayload: {}, paymentRequirements: {} }],
    ] as const) {
      it(`${name}`, async () => {
        for (const path of ['/verify', '/settle']) {
          const res = await request(h.app).post(path).send(body as object).expect(400);
          assert.match(String(res.headers['content-type']), /application\/problem\+json/);
          assert.equal(res.body.code, 'invalid_request');
          assert.ok(Array.isArray(res.body.errors));
        }
      });
    }

    it('invalid JSON is 400 invalid_json', async () => {
      const res = await request(h.app).post('/verify').set('content-type', 'application/json').send('{"x402Version":').expect(400);
      assert.equal(res.body.code, 'invalid_json');
    });
  });
});
