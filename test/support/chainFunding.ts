/**
 * The dev chain as the chain tests see it (issue 44): whether a node answers at CHAIN_RPC_URL with
 * a test USDC at Base Sepolia's address, minting to a buyer, balances and receipts. Until the
 * project's dev chain lands (scripts/chain.sh, branch `chain`) this mints with a public
 * `mint(address,uint256)` from a node account, which a dev token has.
 */
import { createPublicClient, createWalletClient, defineChain, http, parseAbi, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { USDC } from './payments.js';

export const CHAIN_RPC_URL = process.env.CHAIN_RPC_URL ?? 'http://127.0.0.1:8545';
/** Hardhat's well-known accounts 1 (the facilitator) and 0 (the deployer, which mints), as the dev chain assigns them: public test keys, worthless anywhere else. */
export const DEV_FACILITATOR_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const FUNDER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const TOKEN = parseAbi(['function mint(address,uint256)', 'function balanceOf(address) view returns (uint256)']);
const chain = defineChain({ id: 84532, name: 'dev', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [CHAIN_RPC_URL] } } });
export const chainClient: PublicClient = createPublicClient({ chain, transport: http(CHAIN_RPC_URL, { retryCount: 0 }), pollingInterval: 100 });
const funder = createWalletClient({ chain, transport: http(CHAIN_RPC_URL), account: privateKeyToAccount(FUNDER_KEY) });

/** A dev node with the test USDC deployed answers (else the chain tests skip). */
export async function devChainAvailable(): Promise<boolean> {
  try {
    return (await chainClient.getChainId()) === 84532 && ((await chainClient.getCode({ address: USDC })) ?? '0x') !== '0x';
  } catch {
    return false;
  }
}

export async function fundBuyer(address: string, amount: bigint): Promise<void> {
  const hash = await funder.writeContract({ address: USDC, abi: TOKEN, functionName: 'mint', args: [address as Hex, amount] });
  await chainClient.waitForTransactionReceipt({ hash });
}

/** Native currency for gas, from the funder. */
export async function fundGas(address: string, wei: bigint): Promise<void> {
  const hash = await funder.sendTransaction({ to: address as Hex, value: wei });
  await chainClient.waitForTransactionReceipt({ hash });
}

export function usdcBalance(address: string): Promise<bigint> {
  return chainClient.readContract({ address: USDC, abi: TOKEN, functionName: 'balanceOf', args: [address as Hex] });
}

export async function setAutomine(on: boolean): Promise<void> {
  await chainClient.request({ method: 'evm_setAutomine' as never, params: [on] as never });
}

export async function mineBlock(): Promise<void> {
  await chainClient.request({ method: 'evm_mine' as never, params: [] as never });
}
