import assert from 'node:assert/strict';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toClientEvmSigner, toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client';
import { ExactEvmScheme as ExactEvmFacilitator } from '@x402/evm/exact/facilitator';
import { UptoEvmScheme as UptoEvmClient } from '@x402/evm/upto/client';
import { UptoEvmScheme as UptoEvmFacilitator } from '@x402/evm/upto/facilitator';
import { createPublicClient, createWalletClient, http, maxUint256, publicActions, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  DEV_FACILITATOR_KEY, DEV_KEYS, DEV_NETWORK, DEV_USDC_ADDRESS, PERMIT2_ADDRESS, devChainDefinition, devChainRpcUrl, ensureDevChain, fundBuyer, usdcBalance, type DevChain,
} from '../chain/devChain.js';

/**
 * The Permit2 path on the real dev node: our Permit2 (SignatureTransfer) and x402 proxies at the
 * canonical addresses, driven by @x402/evm's own upto and exact (permit2) clients and facilitators.
 */
describe('dev chain: Permit2 and the x402 proxies under @x402/evm upto and exact', function () {
  this.timeout(60_000);
  const rpcUrl = devChainRpcUrl();
  const chain = devChainDefinition(rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const facilitatorSigner = (key: Hex) => {
    const account = privateKeyToAccount(key);
    const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) }).extend(publicActions);
    return toFacilitatorEvmSigner(Object.assign(wallet, { address: account.address }) as never);
  };
  const facilitatorAddress = privateKeyToAccount(DEV_FACILITATOR_KEY).address;
  let dev: DevChain;

  before(async () => {
    dev = await ensureDevChain(rpcUrl);
  });

  /** A buyer with test USDC and gas, who has approved Permit2 once (the Permit2 path's one prerequisite). */
  async function permit2Buyer(usdc: bigint): Promise<Hex> {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await fundBuyer(account.address, usdc, 10n ** 16n, rpcUrl);
    const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
    const hash = await wallet.writeContract({ address: DEV_USDC_ADDRESS, abi: dev.usdc.artifact.abi, functionName: 'approve', args: [PERMIT2_ADDRESS, maxUint256] });
    await publicClient.waitForTransactionReceipt({ hash });
    return key;
  }
  const seller = () => privateKeyToAccount(generatePrivateKey()).address;
  const clientSigner = (key: Hex) => toClientEvmSigner(privateKeyToAccount(key), publicClient as never);

  it('upto: the buyer signs a ceiling, the named facilitator settles less; a replay and another facilitator settle nothing', async () => {
    const buyer = await permit2Buyer(5_000_000n);
    const payTo = seller();
    const ceiling: PaymentRequirements = {
      scheme: 'upto', network: DEV_NETWORK, asset: DEV_USDC_ADDRESS, amount: '2000000', payTo, maxTimeoutSeconds: 300,
      extra: { name: 'USDC', version: '2', facilitatorAddress },
    };
    const created = await new UptoEvmClient(clientSigner(buyer)).createPaymentPayload(2, ceiling);
    const payment: PaymentPayload = { x402Version: 2, accepted: ceiling, payload: created.payload };
    const facilitator = new UptoEvmFacilitator(facilitatorSigner(DEV_FACILITATOR_KEY));
    const verified = await facilitator.verify(payment, ceiling);
    assert.equal(verified.isValid, true, JSON.stringify(verified));

    const stranger = await new UptoEvmFacilitator(facilitatorSigner(DEV_KEYS[2])).settle(payment, { ...ceiling, amount: '1500000' });
    assert.equal(stranger.success, false, JSON.stringify(stranger));

    const settled = await facilitator.settle(payment, { ...ceiling, amount: '1500000' });
    assert.equal(settled.success, true, JSON.stringify(settled));
    assert.equal((await publicClient.getTransactionReceipt({ hash: settled.transaction as Hex })).status, 'success');
    assert.equal(await usdcBalance(payTo, rpcUrl), 1_500_000n);
    assert.equal(await usdcBalance(privateKeyToAccount(buyer).address, rpcUrl), 3_500_000n);

    const replay = await facilitator.settle(payment, { ...ceiling, amount: '500000' });
    assert.equal(replay.success, false);
    assert.equal(await usdcBalance(payTo, rpcUrl), 1_500_000n);
  });

  it('exact over Permit2: the exact proxy pays the witness\'s recipient the permitted amount, once', async () => {
    const buyer = await permit2Buyer(3_000_000n);
    const payTo = seller();
    const accepted: PaymentRequirements = {
      scheme: 'exact', network: DEV_NETWORK, asset: DEV_USDC_ADDRESS, amount: '750000', payTo, maxTimeoutSeconds: 300,
      extra: { name: 'USDC', version: '2', assetTransferMethod: 'permit2' },
    };
    const created = await new ExactEvmClient(clientSigner(buyer)).createPaymentPayload(2, accepted);
    assert.ok('permit2Authorization' in created.payload);
    const payment: PaymentPayload = { x402Version: 2, accepted, payload: created.payload };
    const facilitator = new ExactEvmFacilitator(facilitatorSigner(DEV_FACILITATOR_KEY));
    const verified = await facilitator.verify(payment, accepted);
    assert.equal(verified.isValid, true, JSON.stringify(verified));
    const settled = await facilitator.settle(payment, accepted);
    assert.equal(settled.success, true, JSON.stringify(settled));
    assert.equal(await usdcBalance(payTo, rpcUrl), 750_000n);
    assert.equal((await facilitator.settle(payment, accepted)).success, false);
    assert.equal(await usdcBalance(payTo, rpcUrl), 750_000n);
  });
});
