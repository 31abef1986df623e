import assert from 'node:assert/strict';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner, toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmFacilitator } from '@x402/evm/exact/facilitator';
import { createPublicClient, createWalletClient, http, parseSignature, publicActions, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  DEV_FACILITATOR_KEY, DEV_NETWORK, DEV_USDC_ADDRESS, devChainDefinition, devChainRpcUrl, ensureDevChain, fundBuyer, usdcBalance, type DevChain,
} from '../chain/devChain.js';

/**
 * The dev chain's test USDC on the real node (scripts/chain.sh starts it; npm test does through
 * scripts/services.sh): payments made and checked by the x402 packages' own exact scheme, client
 * and facilitator, move tokens; a replayed authorization and a wrong signer are refused by the
 * contract itself, not only by the facilitator's checks.
 */
describe('dev chain: test USDC with EIP-3009 under @x402/evm exact', function () {
  this.timeout(60_000);
  const rpcUrl = devChainRpcUrl();
  const chain = devChainDefinition(rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const facilitatorAccount = privateKeyToAccount(DEV_FACILITATOR_KEY);
  const facilitatorWallet = createWalletClient({ account: facilitatorAccount, chain, transport: http(rpcUrl) }).extend(publicActions);
  const facilitator = new ExactEvmFacilitator(toFacilitatorEvmSigner(Object.assign(facilitatorWallet, { address: facilitatorAccount.address }) as never));
  let dev: DevChain;

  before(async () => {
    dev = await ensureDevChain(rpcUrl);
  });

  const requirements = (payTo: string, amount: string): PaymentRequirements => ({
    scheme: 'exact', network: DEV_NETWORK, asset: DEV_USDC_ADDRESS, amount, payTo, maxTimeoutSeconds: 300, extra: { name: 'USDC', version: '2' },
  });

  async function pay(key: Hex, accepted: PaymentRequirements): Promise<PaymentPayload> {
    const client = new ExactEvmClient(toClientEvmSigner(privateKeyToAccount(key), publicClient as never));
    const result = await client.createPaymentPayload(2, accepted);
    return { x402Version: 2, accepted, payload: result.payload };
  }

  async function newBuyer(usdc: bigint): Promise<Hex> {
    const key = generatePrivateKey();
    if (usdc > 0n) await fundBuyer(privateKeyToAccount(key).address, usdc, 0n, rpcUrl);
    return key;
  }

  const seller = () => privateKeyToAccount(generatePrivateKey()).address;

  it('is in place with the domain the x402 requirements name (USDC / 2, 6 decimals) and a second ensure sends nothing', async () => {
    const read = (functionName: string) => publicClient.readContract({ address: DEV_USDC_ADDRESS, abi: dev.usdc.artifact.abi, functionName });
    assert.equal(await read('name'), 'USDC');
    assert.equal(await read('version'), '2');
    assert.equal(await read('decimals'), 6);
    const domain = await read('eip712Domain') as unknown[];
    assert.deepEqual([domain[1], domain[2], domain[3], domain[4]], ['USDC', '2', 84532n, DEV_USDC_ADDRESS]);
    assert.deepEqual((await ensureDevChain(rpcUrl)).placed, []);
  });

  it('a payment signed by the exact client verifies and settles: the buyer\'s USDC moves to the seller in a mined transaction', async () => {
    const buyer = await newBuyer(5_000_000n);
    const payTo = seller();
    const payment = await pay(buyer, requirements(payTo, '1250000'));
    const verified = await facilitator.verify(payment, payment.accepted);
    assert.equal(verified.isValid, true, JSON.stringify(verified));
    const settled = await facilitator.settle(payment, payment.accepted);
    assert.equal(settled.success, true, JSON.stringify(settled));
    const receipt = await publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from.toLowerCase(), facilitatorAccount.address.toLowerCase());
    assert.equal(await usdcBalance(payTo, rpcUrl), 1_250_000n);
    assert.equal(await usdcBalance(privateKeyToAccount(buyer).address, rpcUrl), 3_750_000n);
  });

  it('a replayed authorization is refused by the facilitator and by the token', async () => {
    const buyer = await newBuyer(5_000_000n);
    const payTo = seller();
    const payment = await pay(buyer, requirements(payTo, '1000000'));
    assert.equal((await facilitator.settle(payment, payment.accepted)).success, true);
    const again = await facilitator.verify(payment, payment.accepted);
    assert.equal(again.isValid, false);
    assert.match(String(again.invalidReason), /nonce|used/i);
    assert.equal((await facilitator.settle(payment, payment.accepted)).success, false);
    await assert.rejects(sendAuthorization(payment), /authorization is used or canceled/);
    assert.equal(await usdcBalance(payTo, rpcUrl), 1_000_000n);
  });

  it('an authorization signed by another key is refused by the facilitator and by the token', async () => {
    const buyer = await newBuyer(5_000_000n);
    const impostor = generatePrivateKey();
    const accepted = requirements(seller(), '1000000');
    const genuine = await pay(buyer, accepted);
    // The buyer's authorization, the impostor's signature over it.
    const authorization = (genuine.payload as { authorization: Record<string, string> }).authorization;
    const impostorSigned = await privateKeyToAccount(impostor).signTypedData({
      domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: DEV_USDC_ADDRESS },
      types: { TransferWithAuthorization: [
        { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
      ] },
      primaryType: 'TransferWithAuthorization',
      message: { ...authorization, value: BigInt(authorization.value!), validAfter: BigInt(authorization.validAfter!), validBefore: BigInt(authorization.validBefore!) } as never,
    });
    const tampered: PaymentPayload = { ...genuine, payload: { authorization, signature: impostorSigned } };
    const verdict = await facilitator.verify(tampered, accepted);
    assert.equal(verdict.isValid, false);
    assert.equal(verdict.invalidReason, 'invalid_exact_evm_signature');
    await assert.rejects(sendAuthorization(tampered), /invalid signature/);
  });

  it('a buyer without USDC is told so from chain state', async () => {
    const buyer = await newBuyer(0n);
    const payment = await pay(buyer, requirements(seller(), '1000000'));
    const verdict = await facilitator.verify(payment, payment.accepted);
    assert.equal(verdict.isValid, false);
    assert.match(String(verdict.invalidReason), /insufficient/i);
  });

  it('cancelAuthorization retires a nonce before it is used', async () => {
    const buyerKey = await newBuyer(2_000_000n);
    const buyer = privateKeyToAccount(buyerKey);
    const payment = await pay(buyerKey, requirements(seller(), '1000000'));
    const nonce = (payment.payload as { authorization: { nonce: Hex } }).authorization.nonce;
    const signature = await buyer.signTypedData({
      domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: DEV_USDC_ADDRESS },
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'CancelAuthorization',
      message: { authorizer: buyer.address, nonce },
    });
    const hash = await facilitatorWallet.writeContract({ address: DEV_USDC_ADDRESS, abi: dev.usdc.artifact.abi, functionName: 'cancelAuthorization', args: [buyer.address, nonce, signature] });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, 'success');
    assert.equal(await publicClient.readContract({ address: DEV_USDC_ADDRESS, abi: dev.usdc.artifact.abi, functionName: 'authorizationState', args: [buyer.address, nonce] }), true);
    assert.equal((await facilitator.verify(payment, payment.accepted)).isValid, false);
  });

  /** The transfer sent straight to the token, (v,r,s) form, simulated: the contract's own verdict. */
  async function sendAuthorization(payment: PaymentPayload): Promise<unknown> {
    const { authorization: a, signature } = payment.payload as { authorization: Record<string, string>; signature: Hex };
    const { v, r, s } = parseSignature(signature);
    return publicClient.simulateContract({
      account: facilitatorAccount, address: DEV_USDC_ADDRESS, abi: dev.usdc.artifact.abi, functionName: 'transferWithAuthorization',
      args: [a.from, a.to, BigInt(a.value!), BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce, Number(v), r, s],
    });
  }
});
