/**
 * The dev chain's contracts and money, for scripts, tests and the lab (never for the service: a
 * production facilitator is given an RPC URL and a key, and deploys nothing). On a dev node
 * (Hardhat's, chain id 84532) it puts our contracts at the addresses the x402 packages use on Base
 * Sepolia, by deploying each normally, copying its runtime code to the canonical address with
 * hardhat_setCode and initialising what constructor-written storage would have held; and it funds
 * buyers: test USDC minted to them, gas added to their balance.
 *
 * Accounts: Hardhat's default mnemonic funds ten accounts with 10,000 ETH each (publicly known keys,
 * worthless anywhere else). #0 deploys and is the USDC minter; #1 is the facilitator's dev key
 * (DEV_FACILITATOR_KEY: it pays settlement gas); the others are free for tests and demos.
 */
import { createPublicClient, createWalletClient, defineChain, getAddress, http, keccak256, type Address, type Hex, type PublicClient } from 'viem';
import { nonceManager, privateKeyToAccount } from 'viem/accounts';
import { usdcAddress } from '../src/x402/usdc.js';
import { EXACT_PERMIT2_PROXY_ADDRESS, MULTICALL3_ADDRESS, PERMIT2_ADDRESS, UPTO_PERMIT2_PROXY_ADDRESS } from '../src/x402/evmContracts.js';
import { buildContracts, type Artifact, type Artifacts } from './build.js';

export const DEV_CHAIN_ID = 84532;
export const DEV_NETWORK = `eip155:${DEV_CHAIN_ID}`;
export const DEFAULT_CHAIN_RPC_URL = 'http://127.0.0.1:8545';

/** Hardhat's default accounts #0..#3 (mnemonic "test test ... junk"): known to everyone, dev only. */
export const DEV_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const satisfies readonly Hex[];
/** Deploys our contracts and mints test USDC. */
export const DEV_DEPLOYER_KEY: Hex = DEV_KEYS[0];
/** The facilitator's key on the dev chain: funded with 10,000 ETH of gas by the node itself. */
export const DEV_FACILITATOR_KEY: Hex = DEV_KEYS[1];

export const DEV_USDC_ADDRESS = getAddress(usdcAddress(DEV_NETWORK)!);

/** What runs where on the dev chain: contract name in chain/contracts, and its constructor's arguments. */
const PLACEMENTS: { name: string; address: Address; args: unknown[] }[] = [
  { name: 'Multicall3', address: MULTICALL3_ADDRESS, args: [] },
  { name: 'TestUSDC', address: DEV_USDC_ADDRESS, args: [] },
  { name: 'Permit2', address: PERMIT2_ADDRESS, args: [] },
  { name: 'x402ExactPermit2Proxy', address: EXACT_PERMIT2_PROXY_ADDRESS, args: [] },
  { name: 'x402UptoPermit2Proxy', address: UPTO_PERMIT2_PROXY_ADDRESS, args: [] },
];

export interface DevChainContract {
  name: string;
  address: Address;
  artifact: Artifact;
}

export interface DevChain {
  rpcUrl: string;
  client: PublicClient;
  contracts: Record<string, DevChainContract>;
  usdc: DevChainContract;
  /** What was (re)placed by this call; empty when everything was already there. */
  placed: string[];
}

/** CHAIN_RPC_URL or the default local node. */
export function devChainRpcUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHAIN_RPC_URL || DEFAULT_CHAIN_RPC_URL;
}

export function devChainDefinition(rpcUrl: string) {
  return defineChain({
    id: DEV_CHAIN_ID,
    name: 'dev chain (Base Sepolia id)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
}

export class NotADevChain extends Error {}

/**
 * Refuses anything but a dev node with the dev chain id: the faucet mints and sets balances, which
 * only a dev node allows, and must never be pointed at a network where its keys could mean money.
 */
export async function assertDevChain(client: PublicClient, rpcUrl: string): Promise<void> {
  const chainId = await client.getChainId();
  if (chainId !== DEV_CHAIN_ID) throw new NotADevChain(`${rpcUrl} is chain ${chainId}, not the dev chain (${DEV_CHAIN_ID})`);
  const clientVersion = await client.request({ method: 'web3_clientVersion' } as never) as string;
  if (!/hardhat|anvil/i.test(clientVersion)) {
    throw new NotADevChain(`${rpcUrl} answers as "${clientVersion}", not a dev node (Hardhat): refusing to deploy or fund there`);
  }
}

/** Code equal but for immutables (a deployment writes them; the artifact holds zeros there). */
export function sameCode(deployed: Hex, artifact: Artifact): boolean {
  if (deployed.length !== artifact.deployedBytecode.length) return false;
  const mask = (code: Hex) => {
    const chars = code.split('');
    for (const { start, length } of artifact.immutables) chars.fill('0', 2 + start * 2, 2 + (start + length) * 2);
    return chars.join('').toLowerCase();
  };
  return mask(deployed) === mask(artifact.deployedBytecode);
}

const clients = new Map<string, PublicClient>();
function publicClient(rpcUrl: string): PublicClient {
  let client = clients.get(rpcUrl);
  if (!client) {
    client = createPublicClient({ chain: devChainDefinition(rpcUrl), transport: http(rpcUrl) }) as PublicClient;
    clients.set(rpcUrl, client);
  }
  return client;
}

/** One nonce manager per process for the deployer: concurrent funding in one process never collides. */
const deployer = privateKeyToAccount(DEV_DEPLOYER_KEY, { nonceManager });
function deployerWallet(rpcUrl: string) {
  return createWalletClient({ account: deployer, chain: devChainDefinition(rpcUrl), transport: http(rpcUrl) });
}

/**
 * Our contracts at their addresses on the dev node at `rpcUrl`, deploying whatever is missing or
 * differs from the current sources (compiled on demand, chain/build.ts). Idempotent: a second call
 * reads the code and sends nothing.
 */
export async function ensureDevChain(rpcUrl = devChainRpcUrl(), artifacts: Artifacts = buildContracts()): Promise<DevChain> {
  const client = publicClient(rpcUrl);
  await assertDevChain(client, rpcUrl);
  const wallet = deployerWallet(rpcUrl);
  const contracts: Record<string, DevChainContract> = {};
  const placed: string[] = [];
  for (const { name, address, args } of PLACEMENTS) {
    const artifact = artifacts[name];
    if (!artifact) throw new Error(`chain/contracts has no contract ${name}`);
    contracts[name] = { name, address, artifact };
    const current = (await client.getCode({ address })) ?? '0x';
    if (current !== '0x' && sameCode(current, artifact)) continue;
    const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${name} failed (${hash})`);
    const code = await client.getCode({ address: receipt.contractAddress });
    await client.request({ method: 'hardhat_setCode', params: [address, code] } as never);
    placed.push(name);
  }
  const usdc = contracts.TestUSDC!;
  await initializeUsdc(client, wallet, usdc);
  return { rpcUrl, client, contracts, usdc, placed };
}

/** The minter slot: empty where the code was copied to, so set once (a second racer finds it set). */
async function initializeUsdc(client: PublicClient, wallet: ReturnType<typeof deployerWallet>, usdc: DevChainContract): Promise<void> {
  const minter = () => client.readContract({ address: usdc.address, abi: usdc.artifact.abi, functionName: 'minter' }) as Promise<Address>;
  if ((await minter()) !== '0x0000000000000000000000000000000000000000') return;
  try {
    const hash = await wallet.writeContract({ address: usdc.address, abi: usdc.artifact.abi, functionName: 'initialize', args: [deployer.address] });
    await client.waitForTransactionReceipt({ hash });
  } catch (err) {
    if ((await minter()) === '0x0000000000000000000000000000000000000000') throw err;
  }
}

export interface Funded {
  address: Address;
  usdc: bigint;
  wei: bigint;
  /** The mint's transaction, when USDC was minted. */
  mintTransaction?: Hex;
}

/**
 * Gives `address` test USDC (minted: a real Transfer from the zero address, in base units) and gas
 * (added to its balance with hardhat_setBalance: no sender, so no nonce to race for).
 */
export async function fundBuyer(address: string, usdcBaseUnits: bigint, gasWei = 0n, rpcUrl = devChainRpcUrl()): Promise<Funded> {
  const chain = await ensureDevChain(rpcUrl);
  const to = getAddress(address);
  let mintTransaction: Hex | undefined;
  if (usdcBaseUnits > 0n) {
    const hash = await deployerWallet(rpcUrl).writeContract({ address: chain.usdc.address, abi: chain.usdc.artifact.abi, functionName: 'mint', args: [to, usdcBaseUnits] });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`minting to ${to} failed (${hash})`);
    mintTransaction = hash;
  }
  if (gasWei > 0n) {
    const wei = await chain.client.getBalance({ address: to });
    await chain.client.request({ method: 'hardhat_setBalance', params: [to, `0x${(wei + gasWei).toString(16)}`] } as never);
  }
  return { address: to, usdc: await usdcBalance(to, rpcUrl), wei: await chain.client.getBalance({ address: to }), ...(mintTransaction ? { mintTransaction } : {}) };
}

export async function usdcBalance(address: string, rpcUrl = devChainRpcUrl()): Promise<bigint> {
  const artifact = buildContracts().TestUSDC!;
  return await publicClient(rpcUrl).readContract({ address: DEV_USDC_ADDRESS, abi: artifact.abi, functionName: 'balanceOf', args: [getAddress(address)] }) as bigint;
}

/** A fingerprint of the code at an address (tests compare before and after a re-deploy). */
export async function codeHash(address: Address, rpcUrl = devChainRpcUrl()): Promise<Hex> {
  return keccak256((await publicClient(rpcUrl).getCode({ address })) ?? '0x');
}

export { PERMIT2_ADDRESS, EXACT_PERMIT2_PROXY_ADDRESS, UPTO_PERMIT2_PROXY_ADDRESS, MULTICALL3_ADDRESS };
