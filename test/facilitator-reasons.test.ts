/**
 * Issue 11 items 3 and 4: v2 refusals carry the codes of the installed @x402/evm (checked against
 * the package itself), v1 refusals the `x402` package's ErrorReasons, and a pending settlement is
 * answered the way @x402/core's resource server retries it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import request from 'supertest';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server';
import { ErrorReasons } from 'x402/types';
import { V2_SCHEME_NAMES } from '../src/facilitator/paymentSchemes.js';
import { startHarness, type Harness } from './support/harness.js';
import { assertMined, fundBuyer, mineBlock, setAutomine, usdcBalance } from './support/chainFunding.js';
import { listen } from './support/sdkWorld.js';
import { exactRequest, newWallet, NETWORK, requirements, USDC, uptoRequest } from './support/payments.js';

const require = createRequire(import.meta.url);

/** The `Err*` string constants a compiled @x402/evm facilitator module defines. */
function packageErrorCodes(entry: string): Set<string> {
  const source = readFileSync(require.resolve(entry), 'utf8');
  return new Set([...source.matchAll(/var Err\w+ = "([a-z0-9_]+)";/g)].map((m) => m[1]!));
}

describe('facilitator: reason codes of the x402 packages, and a retryable settlement_pending', () => {
  let h: Harness;
  const payer = newWallet();
  const seller = newWallet();
  const req = requirements(seller.address);
  before(async () => {
    h = await startHarness({ SETTLE_PENDING_WAIT_MS: '300', CHAIN_RECEIPT_TIMEOUT_MS: '1000' });
    await fundBuyer(payer.address, 1_000_000n);
    // upto still reads the Redis test ledger (issue 44: the "upto" step moves it on chain).
    await h.container.facilitator.ledger.fund(NETWORK, USDC, payer.address, 1_000_000n);
  });
  after(async () => h.close());

  const verify = async (body: unknown) => (await request(h.app).post('/verify').send(body as object).expect(200)).body;

  it('every v2 code the service renames is one the installed @x402/evm defines for that scheme', () => {
    const exact = packageErrorCodes('@x402/evm/exact/facilitator');
    const upto = packageErrorCodes('@x402/evm/upto/facilitator');
    assert.ok(exact.size > 20 && upto.size > 5, 'the package still defines its codes as constants');
    for (const [scheme, names] of Object.entries(V2_SCHEME_NAMES)) {
      const known = scheme === 'exact' ? exact : upto;
      for (const code of Object.values(names)) assert.ok(known.has(code!), `${scheme}: ${code} is not an @x402/evm ${scheme} code`);
    }
  });

  it('v2 exact refusals match what @x402/evm 2.27 own facilitator answers for the same payloads', async () => {
    // Its EIP-3009 verify runs these checks offline; the chain is only asked whether addresses hold code (EOAs: none).
    const evm = new ExactEvmScheme({ getCode: async () => '0x', getAddresses: () => [] } as never);
    const mismatched = await exactRequest(payer, req);
    const cases = [
      await exactRequest(payer, req, { signer: newWallet() }),
      await exactRequest(payer, req, { to: newWallet().address }),
      await exactRequest(payer, req, { value: '999' }),
      { ...mismatched, paymentPayload: { ...mismatched.paymentPayload, accepted: { ...req, network: 'eip155:8453' } } },
    ];
    const seen: string[] = [];
    for (const body of cases) {
      const theirs = await evm.verify(body.paymentPayload as never, body.paymentRequirements as never);
      const ours = await verify(body);
      assert.equal(theirs.isValid, false);
      assert.equal(ours.invalidReason, theirs.invalidReason);
      seen.push(ours.invalidReason);
    }
    assert.deepEqual(seen, [
      'invalid_exact_evm_signature',
      'invalid_exact_evm_recipient_mismatch',
      'invalid_exact_evm_payload_authorization_value_mismatch',
      'invalid_exact_evm_network_mismatch',
    ]);
  });

  it('v2 upto uses its own scheme names (network mismatch, balance)', async () => {
    const body = await uptoRequest(payer, req);
    const moved = { ...body, paymentPayload: { ...body.paymentPayload, accepted: { ...body.paymentPayload.accepted, network: 'eip155:8453' } } };
    assert.equal((await verify(moved)).invalidReason, 'invalid_upto_evm_network_mismatch');
    assert.equal((await verify(await uptoRequest(newWallet(), req))).invalidReason, 'permit2_insufficient_balance');
  });

  it('v1 requests keep the x402 v1 ErrorReasons', async () => {
    const v1 = async (o: Parameters<typeof exactRequest>[2], from = payer, network = 'base-sepolia') => {
      const v2 = await exactRequest(from, req, o);
      const requirementsV1 = {
        scheme: 'exact', network: 'base-sepolia', maxAmountRequired: req.amount, resource: 'http://seller.test/v1', description: 'v1',
        mimeType: 'application/json', payTo: req.payTo, maxTimeoutSeconds: 60, asset: USDC, extra: req.extra,
      };
      return { x402Version: 1, paymentPayload: { x402Version: 1, scheme: 'exact', network, payload: v2.paymentPayload.payload }, paymentRequirements: requirementsV1 };
    };
    const expected: Array<[unknown, string]> = [
      [await v1({ signer: newWallet() }), 'invalid_exact_evm_payload_signature'],
      [await v1({ to: newWallet().address }), 'invalid_exact_evm_payload_recipient_mismatch'],
      [await v1({ value: '999' }), 'invalid_exact_evm_payload_authorization_value'],
      [await v1({ value: '0' }), 'invalid_exact_evm_payload_authorization_value'],
      [await v1({}, newWallet()), 'insufficient_funds'],
      [await v1({}, payer, 'base'), 'invalid_network'],
    ];
    for (const [body, reason] of expected) {
      const res = await verify(body);
      assert.equal(res.invalidReason, reason);
      assert.ok((ErrorReasons as readonly string[]).includes(res.invalidReason), `${res.invalidReason} is an x402 v1 ErrorReason`);
    }
  });

  it('settlement_pending names the transaction, so @x402/core retries it and gets the settlement', async () => {
    const body = await exactRequest(payer, req);
    // The node holds the transaction unmined past the receipt wait (CHAIN_RECEIPT_TIMEOUT_MS, 1 s here).
    await setAutomine(false);
    try {
      const direct = await request(h.app).post('/settle').send(body).expect(200);
      assert.equal(direct.body.errorReason, 'settlement_pending', JSON.stringify(direct.body));
      assert.match(direct.body.transaction, /^0x[0-9a-f]{64}$/);

      const service = await listen(h.app);
      try {
        const http = new HTTPFacilitatorClient({ url: service.url });
        // The block is mined right after the seller's first attempt.
        const answers: string[] = [];
        const facilitator = Object.assign(Object.create(http) as HTTPFacilitatorClient, {
          settle: async (...args: Parameters<HTTPFacilitatorClient['settle']>) => {
            const result = await http.settle(...args);
            answers.push(result.errorReason ?? 'settled');
            await mineBlock();
            await setAutomine(true);
            return result;
          },
        });
        const resourceServer = new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmServerScheme());
        await resourceServer.initialize();
        const result = await resourceServer.settlePayment(body.paymentPayload as never, req as never);
        assert.deepEqual(answers, ['settlement_pending', 'settled'], '@x402/core retried the pending settlement once');
        assert.equal(result.success, true);
        assert.equal(result.transaction, direct.body.transaction, 'the pending answer named the settlement transaction');
        await assertMined(result.transaction);
        assert.equal(await usdcBalance(seller.address), 1000n);
      } finally {
        await service.close();
      }
    } finally {
      await setAutomine(true);
    }
  });
});
