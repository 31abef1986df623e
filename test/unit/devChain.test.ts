/**
 * The dev chain's pure parts: our contracts' addresses are the ones @x402/evm calls, their
 * functions have the selectors its ABIs encode (so the package's calls reach them), and code is
 * compared without the immutables a deployment writes (chain/devChain.ts re-places a contract only
 * when its code differs). Compiles chain/contracts with solc from npm (cached in .cache/chain/).
 */
import assert from 'node:assert/strict';
import { PERMIT2_ADDRESS as X402_PERMIT2, eip3009ABI, x402ExactPermit2ProxyABI, x402ExactPermit2ProxyAddress, x402UptoPermit2ProxyABI, x402UptoPermit2ProxyAddress } from '@x402/evm';
import { toFunctionSelector, type Abi, type AbiFunction, type Hex } from 'viem';
import { buildContracts } from '../../chain/build.js';
import { assertDevChain, DEV_USDC_ADDRESS, NotADevChain, sameCode } from '../../chain/devChain.js';
import { EXACT_PERMIT2_PROXY_ADDRESS, PERMIT2_ADDRESS, UPTO_PERMIT2_PROXY_ADDRESS } from '../../src/x402/evmContracts.js';

const selectors = (abi: Abi | readonly unknown[]) =>
  new Set((abi as Abi).filter((item): item is AbiFunction => item.type === 'function').map((fn) => toFunctionSelector(fn)));

describe('dev chain contracts', function () {
  this.timeout(60_000);
  const artifacts = buildContracts();

  it('sit at the addresses @x402/evm uses on Base Sepolia', () => {
    assert.equal(PERMIT2_ADDRESS, X402_PERMIT2);
    assert.equal(EXACT_PERMIT2_PROXY_ADDRESS, x402ExactPermit2ProxyAddress);
    assert.equal(UPTO_PERMIT2_PROXY_ADDRESS, x402UptoPermit2ProxyAddress);
    assert.equal(DEV_USDC_ADDRESS, '0x036CbD53842c5426634e7929541eC2318f3dCF7e');
  });

  it('answer every function of the x402 ABIs they stand in for', () => {
    for (const [ours, theirs] of [['TestUSDC', eip3009ABI], ['x402ExactPermit2Proxy', x402ExactPermit2ProxyABI], ['x402UptoPermit2Proxy', x402UptoPermit2ProxyABI]] as const) {
      const have = selectors(artifacts[ours]!.abi);
      for (const selector of selectors(theirs)) assert.ok(have.has(selector), `${ours} lacks ${selector}`);
    }
  });

  it('compare code without the immutables a deployment writes', () => {
    const usdc = artifacts.TestUSDC!;
    assert.ok(usdc.immutables.length > 0, 'OpenZeppelin EIP712 keeps its domain in immutables');
    const chars = usdc.deployedBytecode.split('');
    for (const { start, length } of usdc.immutables) chars.fill('f', 2 + start * 2, 2 + (start + length) * 2);
    const deployed = chars.join('') as Hex;
    assert.equal(sameCode(deployed, usdc), true);
    const last = deployed.length - 1;
    const changed = `${deployed.slice(0, last)}${deployed[last] === '0' ? '1' : '0'}` as Hex;
    assert.equal(sameCode(changed, usdc), false);
    assert.equal(sameCode(`${deployed}00`, usdc), false);
  });
});

describe('assertDevChain', () => {
  const node = (chainId: number, clientVersion: string) =>
    ({ getChainId: async () => chainId, request: async () => clientVersion }) as unknown as Parameters<typeof assertDevChain>[0];

  it('accepts a Hardhat node with the dev chain id and refuses any other chain or node', async () => {
    await assertDevChain(node(84532, 'HardhatNetwork/2.29.1/@nomicfoundation/edr/0.12.0'), 'http://dev');
    await assert.rejects(assertDevChain(node(8453, 'HardhatNetwork/2.29.1'), 'http://base'), (err) => err instanceof NotADevChain && /chain 8453/.test(err.message));
    await assert.rejects(assertDevChain(node(84532, 'Geth/v1.14.0'), 'http://sepolia'), (err) => err instanceof NotADevChain && /not a dev node/.test(err.message));
  });
});
